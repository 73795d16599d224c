/**
 * The API adapters beside V2, one line each: the composition point of both processes. api/app.ts
 * mounts their routes before V2's; the worker (workers/main.ts) registers their webhook formats.
 * An adapter is a leaf folder that only translates (the layer lint lets nothing else import it);
 * retiring one is deleting its folder, its queries module and its line here.
 */
import { WebhookFormats } from '../domain/webhook-formats';
import type { ApiPart } from './mount';
import { v1Api } from './v1';

export const ADAPTERS: ApiPart[] = [
  v1Api, // legacy V1 (docs/v1.md): api/v1/ and db/queries/v1.ts
];

/** The webhook formats the worker chooses from, by merchant api_version: V2's built in, plus every adapter's. */
export const adapterWebhookFormats = () => new WebhookFormats(ADAPTERS.flatMap((adapter) => adapter.webhookFormats ?? []));
