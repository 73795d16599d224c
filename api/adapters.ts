/**
 * The API adapters beside V2, one line each: the composition point of both processes. An adapter
 * has two faces, loaded apart: its API part (routes, middleware), which api/app.ts mounts before
 * V2's, and the webhook formats of its merchants, which the worker registers at startup
 * (workers/main.ts) — so the worker loads no HTTP code. An adapter is a leaf folder that only
 * translates, and the layer lint lets nothing else import it: retiring one is deleting its folder,
 * its queries module and its line here.
 */
import { WebhookFormats, type WebhookFormat } from '../domain/events/webhook-formats';
import type { ApiPart } from './mount';

interface ApiAdapter {
  /** Its routes and middleware, mounted before V2's (each adapter claims a path prefix of its own). */
  api(): Promise<ApiPart>;
  /** The webhook formats of its merchants, by api_version (domain/events/webhook-formats.ts). */
  webhookFormats?(): Promise<WebhookFormat[]>;
}

const ADAPTERS: ApiAdapter[] = [
  { api: async () => (await import('./v1')).v1Api, webhookFormats: async () => [(await import('./v1/webhooks')).v1WebhookFormat] }, // legacy V1, docs/v1.md
];

/** Every adapter's API part, in list order (api/app.ts). */
export const adapterParts = (): Promise<ApiPart[]> => Promise.all(ADAPTERS.map((adapter) => adapter.api()));

/** The worker's webhook formats: V2's built in, plus every adapter's (their HTTP side is not loaded). */
export async function adapterWebhookFormats(): Promise<WebhookFormats> {
  const formats = await Promise.all(ADAPTERS.map((adapter) => adapter.webhookFormats?.() ?? []));
  return new WebhookFormats(formats.flat());
}
