/** A deposit address's QR code, shared by the cabinet's and the trader app's Wallet pages. */
import { encode } from 'uqr';

/** The QR code of a text as SVG: one dark square per module, a quiet zone of 4 around. */
export function QrCode({ text, label }: { text: string; label: string }) {
  const { data, size } = encode(text, { ecc: 'M', border: 4 });
  const path = data.flatMap((row, y) => row.map((dark, x) => (dark ? `M${x} ${y}h1v1h-1z` : ''))).join('');
  return (
    <svg
      className="qr"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${size} ${size}`}
      width={Math.max(192, size * 5)}
      height={Math.max(192, size * 5)}
      shapeRendering="crispEdges"
      data-testid="deposit-qr"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
