/**
 * Writes the OpenAPI document the API serves at /openapi.json, built from the route definitions
 * alone: no database, no Temporal, no running stack. `npm run lint:openapi` lints what it writes.
 *
 *   node --import tsx scripts/openapi.ts [out-file]   (default: stdout)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { allRoutes } from '../api/app';
import { openApiDocument } from '../api/openapi';

if (allRoutes.length === 0) throw new Error('no routes registered');
const text = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
const out = process.argv[2];
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(`[openapi] ${Object.keys((openApiDocument() as { paths: object }).paths).length} paths written to ${out}`);
} else {
  process.stdout.write(text);
}
