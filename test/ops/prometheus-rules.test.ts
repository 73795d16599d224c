/**
 * The alert rules as Prometheus reads them: `promtool check rules` on every rule file, the rule
 * unit tests of deploy/prometheus/tests (`promtool test rules`), and `promtool check config` on
 * deploy/prometheus/prometheus.yml when it exists. promtool is built by scripts/run.sh (PROMTOOL).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { ROOT } from '../../scripts/stack';

// Set by scripts/run.sh, which pins the version and builds it (npm test); no second pin here.
const PROMTOOL = process.env.PROMTOOL ?? '';
const RULES = 'deploy/prometheus/rules';
const TESTS = 'deploy/prometheus/tests';
const CONFIG = 'deploy/prometheus/prometheus.yml';

const files = (dir: string, pattern: RegExp) =>
  existsSync(join(ROOT, dir))
    ? readdirSync(join(ROOT, dir))
        .filter((f) => pattern.test(f))
        .sort()
        .map((f) => join(dir, f))
    : [];

function promtool(args: string[]) {
  const result = spawnSync(PROMTOOL, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}${result.error ? String(result.error) : ''}` };
}

test.before(() => {
  if (!PROMTOOL || !existsSync(PROMTOOL))
    throw new Error(`promtool not found (PROMTOOL=${PROMTOOL}): run the tests with npm test, whose scripts/run.sh builds it`);
});

test('promtool check rules passes on every rule file', (t) => {
  const ruleFiles = files(RULES, /\.ya?ml$/);
  t.true(ruleFiles.includes(join(RULES, 'temporal.rules.yml')), ruleFiles.join(' '));
  const result = promtool(['check', 'rules', ...ruleFiles]);
  t.is(result.status, 0, result.output);
});

test('every alert has a severity, a summary, a description and a runbook section that exists', (t) => {
  const operations = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  // GitHub's anchors of the ### headings: lower case, punctuation dropped, spaces to dashes.
  const anchors = new Set(
    [...operations.matchAll(/^#{2,4} (.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    ),
  );
  for (const file of files(RULES, /\.ya?ml$/)) {
    const doc = parse(readFileSync(join(ROOT, file), 'utf8')) as {
      groups: { rules: { alert?: string; labels?: Record<string, string>; annotations?: Record<string, string> }[] }[];
    };
    for (const rule of doc.groups.flatMap((g) => g.rules).filter((r) => r.alert)) {
      const where = `${file} ${rule.alert}`;
      t.regex(rule.labels?.severity ?? '', /^(critical|warning|info)$/, where);
      t.truthy(rule.annotations?.summary, where);
      t.truthy(rule.annotations?.description, where);
      const url = rule.annotations?.runbook_url ?? '';
      const m = /^https:\/\/github\.com\/merchant-gateway\/gateway\/blob\/main\/docs\/operations\.md#(.+)$/.exec(url);
      t.truthy(m, `${where}: runbook_url ${url}`);
      t.true(anchors.has(m?.[1] ?? ''), `${where}: docs/operations.md has no heading for #${m?.[1]}`);
    }
  }
});

test('the rule unit tests pass (promtool test rules)', (t) => {
  const testFiles = files(TESTS, /\.test\.ya?ml$/);
  for (const name of ['temporal.rules.test.yml', 'gateway.rules.test.yml']) t.true(testFiles.includes(join(TESTS, name)), testFiles.join(' '));
  const result = promtool(['test', 'rules', ...testFiles]);
  t.is(result.status, 0, result.output);
});

test('a broken rule file and a failing rule test are refused (the checks can fail)', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'promtool-'));
  try {
    writeFileSync(join(dir, 'bad.rules.yml'), 'groups:\n  - name: x\n    rules:\n      - alert: Broken\n        expr: sum(rate(temporal_num_pollers[5m]\n');
    t.not(promtool(['check', 'rules', join(dir, 'bad.rules.yml')]).status, 0);
    writeFileSync(join(dir, 'ok.rules.yml'), 'groups:\n  - name: x\n    rules:\n      - alert: Zero\n        expr: up == 0\n');
    writeFileSync(
      join(dir, 'wrong.test.yml'),
      'rule_files: [ok.rules.yml]\ntests:\n  - interval: 1m\n    input_series:\n      - series: up{job="a"}\n        values: 1x5\n    alert_rule_test:\n      - eval_time: 3m\n        alertname: Zero\n        exp_alerts: [{ exp_labels: { job: a } }]\n',
    );
    t.not(promtool(['test', 'rules', join(dir, 'wrong.test.yml')]).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('promtool check config passes on deploy/prometheus/prometheus.yml (when the compose stack has one)', (t) => {
  if (!existsSync(join(ROOT, CONFIG))) {
    t.pass(`${CONFIG} does not exist in this tree`);
    return;
  }
  // --syntax-only: the rule files it names are checked above; scrape targets are compose host names.
  const result = promtool(['check', 'config', '--syntax-only', CONFIG]);
  t.is(result.status, 0, result.output);
});
