/**
 * Writes the OpenAPI document the API serves at /openapi.json — or, with --merchant, the
 * merchant's document it serves at /openapi.merchant.json — built from the route definitions
 * alone: no database, no Temporal, no running stack. `npm run lint:openapi` lints both, and
 * tools/go-client/check.sh generates Go clients from both.
 *
 *   node --import tsx scripts/openapi.ts [--merchant] [out-file]   (default: stdout)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { allRoutes } from '../api/app';
import { merchantOpenApiDocument, openApiDocument } from '../api/openapi';

if (allRoutes.length === 0) throw new Error('no routes registered');
const args = process.argv.slice(2);
const merchant = args.includes('--merchant');
const document = (merchant ? merchantOpenApiDocument() : openApiDocument()) as { paths: object };
const text = `${JSON.stringify(document, null, 2)}\n`;
const out = args.find((arg) => !arg.startsWith('--'));
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(`[openapi] ${Object.keys(document.paths).length} paths written to ${out}`);
} else {
  process.stdout.write(text);
}
