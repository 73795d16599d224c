/**
 * The patch register (docs/operations.md, "Patch register") and the workflow code name the same
 * patch ids: every `patched('<id>')` or `deprecatePatch('<id>')` in workflows/ has its row, every
 * row a use — so no branch kept for old runs is without its written exit and the query that counts
 * the runs still on it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';

const WORKFLOWS = new URL('../../workflows/', import.meta.url);
const OPERATIONS = new URL('../../docs/operations.md', import.meta.url);

/** Every .ts file under workflows/, as its text. */
function workflowSources(): { file: string; text: string }[] {
  return (readdirSync(WORKFLOWS, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((file) => ({ file, text: readFileSync(new URL(file, WORKFLOWS), 'utf8') }));
}

/** The rows of the register's table: the first cell's id and the other cells. */
function registerRows(): { id: string; cells: string[] }[] {
  const lines = readFileSync(OPERATIONS, 'utf8').split('\n');
  const heading = lines.indexOf('### Patch register');
  if (heading < 0) return [];
  const header = lines.findIndex((line, i) => i > heading && line.startsWith('| patch id |'));
  const rows: { id: string; cells: string[] }[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    rows.push({ id: cells[0]!.replace(/^`|`$/g, ''), cells });
  }
  return rows;
}

test('docs/operations.md has the patch register: its rule and its table', (t) => {
  const text = readFileSync(OPERATIONS, 'utf8');
  t.true(text.includes('### Patch register'));
  t.true(text.includes('| patch id | workflow | release | may go when | `npm run runs` query |'));
});

test('every patch id of the workflow code has its row in the register, and every row a use', (t) => {
  const sources = workflowSources();
  // Only literal ids: an id in a variable would escape the register.
  t.deepEqual(
    sources.filter(({ text }) => /\b(?:patched|deprecatePatch)\(\s*[^'\s)]/.test(text)).map(({ file }) => file),
    [],
    'patched() and deprecatePatch() take a literal id',
  );
  const used = [...new Set(sources.flatMap(({ text }) => [...text.matchAll(/\b(?:patched|deprecatePatch)\(\s*'([^']+)'/g)].map((m) => m[1]!)))].sort();
  const rows = registerRows();
  t.deepEqual(rows.map((r) => r.id).sort(), used, 'the register lists exactly the ids in use');
  for (const row of rows) {
    t.is(row.cells.length, 5, `${row.id}: id, workflow, release, may go when, query`);
    t.true(
      row.cells.slice(1).every((c) => c.length > 0),
      `${row.id}: every cell filled`,
    );
    t.regex(row.cells[4]!, /npm run runs/, `${row.id}: the query that counts its runs`);
  }
});
