import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/**
 * The client's address for ip_whitelist. X-Forwarded-For counts only when the socket
 * peer is one of TRUSTED_PROXIES; it is then walked from the right over trusted hops, and the
 * first untrusted entry is the client (proxy-addr, as Express does). A direct connection can
 * therefore never claim an address by writing the header itself.
 */
export function clientIpResolver(trustedProxies: string[]): (req: IncomingMessage) => string {
  if (trustedProxies.length === 0) return (req) => normaliseIp(req.socket.remoteAddress ?? '');
  const trust = proxyaddr.compile(trustedProxies);
  return (req) => normaliseIp(proxyaddr(req, trust));
}

/** IPv4 peers on a dual-stack socket arrive as ::ffff:a.b.c.d; the whitelist holds a.b.c.d. */
function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}
