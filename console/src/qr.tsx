/** A QR code: a deposit address (the cabinet's and the trader app's Wallet pages), a bank device's pairing code (the trader's Devices page). */
import { encode } from 'uqr';

/** The QR code of a text as SVG: one dark square per module, a quiet zone of 4 around. */
export function QrCode({ text, label, testId = 'deposit-qr' }: { text: string; label: string; testId?: string }) {
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
      data-testid={testId}
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
