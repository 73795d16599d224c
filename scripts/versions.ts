/** The pinned versions of versions.env (the one place that states them; scripts/run.sh sources the same file). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const VERSIONS_FILE = join(fileURLToPath(new URL('..', import.meta.url)), 'versions.env');

/** KEY=value lines; # comments and blank lines skipped (the subset bash and this both read alike). */
export function parseVersions(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Z][A-Z0-9_]*)=([^\s'"$`#]+)$/.exec(line);
    if (!match) throw new Error(`versions.env line ${i + 1}: expected KEY=value without spaces or quotes, got "${line}"`);
    out[match[1]!] = match[2]!;
  }
  return out;
}

export function readVersions(file = VERSIONS_FILE): Record<string, string> {
  return parseVersions(readFileSync(file, 'utf8'));
}

export function version(key: string): string {
  const value = readVersions()[key];
  if (!value) throw new Error(`versions.env has no ${key}`);
  return value;
}
