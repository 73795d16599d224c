/**
 * Comments a fresh clone can check: no tracked source file points at an issue of the tracker
 * ("issue 29", "#35", "round 4", "item 5") or at a numbered section of a document the repository
 * does not hold ("spec 3.1", "contract 4.2", "§5.1", "section 9"), and every migration a comment
 * names is a file of db/migrations/. The docs name no issue and no section of the spec either.
 * A comment says what it means in words; history goes to docs/decisions/.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';

const ROOT = new URL('../../', import.meta.url);

/** Source files: code, SQL, shell, YAML and the other configuration the repository tracks. */
const SOURCE = /\.(?:ts|tsx|js|mjs|cjs|sql|sh|ya?ml|go|tmpl|conf)$|(?:^|\/)Dockerfile$|^\.ci\/run$/;
/** Written by a tool from another tracked file (the SDK's types come from the OpenAPI document). */
const GENERATED = /(?:^|\/)generated\//;

/** A pointer into the issue tracker. `#N` only as a word of its own, so `&#39;` or `'#7'` pass. */
const ISSUE: RegExp[] = [/\bissues?[\s#-]*\d+/i, /(?<=^|[\s([])#\d+(?=$|[\s),.:\]])/m, /\brounds?\s+\d+\b/i, /\bitems?\s+\d+(?:\.\d+)*\b/i];
/** A numbered section of a document that lives outside the repository (the spec, its contract). */
const SPEC_SECTION: RegExp[] = [/\b(?:spec(?:ification)?|contract)s?[\s-]*§?\s*\d+(?:\.\d+)*\b/i, /§\s*\d/];
/** In source, "section 9" is the spec's too: a comment names a document's part by its title. */
const SECTION = /\bsections?[\s-]+\d+(?:\.\d+)*\b/i;

function tracked(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
}

/** Every line of `files` that one of `patterns` matches, as `file:line: text`. */
function offenders(files: string[], patterns: RegExp[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const lines = readFileSync(new URL(file, ROOT), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (patterns.some((p) => p.test(line))) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
    });
  }
  return found;
}

const sources = () => tracked().filter((f) => SOURCE.test(f) && !GENERATED.test(f));
const docs = () => tracked().filter((f) => f.endsWith('.md'));

test('the rule sees what it is meant to see, and only that', (t) => {
  const hits = (line: string, patterns: RegExp[]) => patterns.some((p) => p.test(line));
  for (const line of ['// Issue 29: the world', '(issue 28.4)', 'see #35.', '(#35)', 'round 4 moved it', 'Issue 25, item 5:', 'issue-17'])
    t.true(hits(line, ISSUE), line);
  for (const line of ["'&#39;'", "description: 'Order #7'", 'color: #333;', 'rounded to 2', 'the 3 items']) t.false(hits(line, ISSUE), line);
  for (const line of ['(spec 3.1)', 'contract 7:', 'Spec 4.1.1.', '§5.1', 'contract §1', 'specs 2.1', 'spec-5.1 headers'])
    t.true(hits(line, SPEC_SECTION), line);
  for (const line of ['the spec says', 'OpenAPI 3.1 `webhooks`', 'the contract of the route', 'specified 3 times']) t.false(hits(line, SPEC_SECTION), line);
  t.true(SECTION.test('every PayIn row of section 9'));
  t.true(sources().includes('test/unit/source-references.test.ts'));
  t.false(sources().some((f) => f.startsWith('node_modules/') || GENERATED.test(f)));
});

test('no tracked source file names an issue of the tracker', (t) => {
  // This file's own examples are the rule's, not references.
  t.deepEqual(
    offenders(
      sources().filter((f) => f !== 'test/unit/source-references.test.ts'),
      ISSUE,
    ),
    [],
  );
});

test('no tracked source file names a numbered section of the spec or its contract', (t) => {
  t.deepEqual(
    offenders(
      sources().filter((f) => f !== 'test/unit/source-references.test.ts'),
      [...SPEC_SECTION, SECTION],
    ),
    [],
  );
});

test('every migration a source file or a doc names is one of db/migrations/ (decision records keep history)', (t) => {
  const present = new Set(readdirSync(new URL('db/migrations/', ROOT)).map((f) => f.slice(0, 5)));
  const missing: string[] = [];
  for (const file of [...sources(), ...docs().filter((f) => !f.startsWith('docs/decisions/'))]) {
    const text = readFileSync(new URL(file, ROOT), 'utf8');
    for (const m of text.matchAll(/\bmigrations?\s+(\d{5})\b|\b(\d{5})_\w+\.sql\b/gi)) {
      const id = m[1] ?? m[2]!;
      if (!present.has(id)) missing.push(`${file}: ${m[0]}`);
    }
  }
  t.deepEqual(missing, []);
});

test('the docs name no issue of the tracker and no section of the spec', (t) => {
  t.deepEqual(offenders(docs(), [...ISSUE, ...SPEC_SECTION]), []);
});
