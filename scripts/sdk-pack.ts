/**
 * npm run sdk:pack: the SDK as the tarball a merchant installs (`npm install <file>.tgz`) or a
 * team publishes to its own registry — `npm pack` in sdk/, whose prepack builds dist/ (ESM and
 * CommonJS with types) — written to .data/sdk/merchant-gateway-sdk-<version>.tgz (ignored by git).
 * npm's own output goes to stderr; stdout is the tarball's absolute path alone, so
 * `TGZ=$(npm run -s sdk:pack)` works.
 *
 *   node --import tsx scripts/sdk-pack.ts
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SDK = join(ROOT, 'sdk');
const OUT = join(ROOT, '.data', 'sdk');

const { name, version } = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as { name: string; version: string };
// npm's tarball name: the scope's @ dropped, its / made a dash.
const tarball = join(OUT, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);

mkdirSync(OUT, { recursive: true });
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const packed = spawnSync(npm, ['pack', '--pack-destination', OUT], { cwd: SDK, stdio: ['ignore', 2, 2] });
if (packed.status !== 0 || !existsSync(tarball)) {
  console.error(`[sdk] npm pack failed (${packed.error?.message ?? `exit ${packed.status}`})`);
  process.exit(1);
}
console.log(tarball);
