/**
 * The SDK's build (`npm run build`, run by `npm pack` as prepack): dist/ from scratch, twice —
 *   dist/esm  ES modules with .d.ts (the package is "type": "module"),
 *   dist/cjs  CommonJS with .d.ts, and a package.json {"type": "commonjs"} so that Node and
 *             TypeScript read the .js and .d.ts files of that folder as CommonJS.
 * Both carry source maps and declaration maps that point at ../../src/*.ts, which the package
 * ships, so stack traces and "go to definition" land in the TypeScript source.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const compile = (project) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tsc -p ${project} exited with ${code}`))));
  });
await Promise.all([compile('tsconfig.json'), compile('tsconfig.cjs.json')]);
writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), `${JSON.stringify({ type: 'commonjs' })}\n`);
