/**
 * Where webhooks may go, checked when a target is saved (merchant webhook_url, a PayIn's
 * callback_url) as well as when it is called (activities/webhook-http.ts pins the checked
 * address at connect). Unless WEBHOOK_ALLOW_PRIVATE_TARGETS: a literal private, loopback,
 * link-local (cloud metadata), NAT64/6to4, multicast or reserved address is refused, and so is a
 * name that resolves to one (localhost included). In production only https targets are taken.
 */
import { lookup } from 'node:dns/promises';
import type { Config } from '../../config';
import { InvalidArgument } from '../../domain/errors';
import { ipLiteralOf, isPrivateAddress } from '../../domain/net-guard';

const LOOKUP_BUDGET_MS = 2_000;

async function resolveAll(hostname: string): Promise<string[]> {
  const timeout = new Promise<string[]>((resolve) => setTimeout(() => resolve([]), LOOKUP_BUDGET_MS).unref());
  const answer = lookup(hostname, { all: true, verbatim: true })
    .then((list) => list.map((a) => a.address))
    .catch(() => []);
  return Promise.race([answer, timeout]);
}

export async function assertWebhookTarget(config: Pick<Config, 'NODE_ENV' | 'WEBHOOK_ALLOW_PRIVATE_TARGETS'>, field: string, value: string): Promise<void> {
  if (value === '') return;
  const url = new URL(value);
  if (config.NODE_ENV === 'production' && url.protocol !== 'https:') throw new InvalidArgument(`${field} must be an https URL`);
  if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) return;
  const literal = ipLiteralOf(url.hostname);
  const host = url.hostname.toLowerCase();
  const refused = literal ? isPrivateAddress(literal) : host === 'localhost' || host.endsWith('.localhost') || (await resolveAll(host)).some(isPrivateAddress);
  // A name that does not resolve now is taken: the send-time guard checks the address it connects to.
  if (refused) throw new InvalidArgument(`${field} must not point at a private, loopback, link-local or reserved address`);
}
