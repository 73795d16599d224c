/**
 * What the dashboards and alert rules query, against what the processes emit: every PromQL
 * expression of deploy/grafana/dashboards/*.json and deploy/prometheus/rules/*.yml is parsed with
 * Prometheus' own grammar (@prometheus-io/lezer-promql) and each selected metric name collected,
 * so a panel or alert on a name nobody emits ("no data") fails a test instead of a night.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

/** One metric a query selects: by exact name, or by a `__name__` regex. */
export interface QueriedMetric {
  name?: string;
  pattern?: string;
  file: string;
  expr: string;
}

/**
 * Grafana's variables are not PromQL: intervals become a duration, other variables a regex that
 * matches anything, so the expression parses as Prometheus will see it after interpolation.
 */
export function interpolateGrafana(expr: string): string {
  return expr
    .replace(/\$__(rate_interval|interval|range|auto_interval_\w+)\b/g, '5m')
    .replace(/\$\{__(rate_interval|interval|range)\}/g, '5m')
    .replace(/\$__range_s\b|\$__interval_ms\b/g, '300')
    .replace(/\$\{[A-Za-z_][\w]*(?::[\w]+)?\}|\$[A-Za-z_]\w*|\[\[[A-Za-z_]\w*\]\]/g, '.*');
}

function text(expr: string, node: SyntaxNode): string {
  return expr.slice(node.from, node.to);
}

function unquote(literal: string): string {
  // PromQL strings: "…" and '…' with Go escapes, or `…` raw.
  if (literal.startsWith('`')) return literal.slice(1, -1);
  return JSON.parse(literal.startsWith("'") ? `"${literal.slice(1, -1).replace(/"/g, '\\"')}"` : literal) as string;
}

/** The metrics one PromQL expression selects; throws on a syntax error (a broken query is a failure too). */
export function selectedMetrics(expr: string): { name?: string; pattern?: string }[] {
  const tree = parser.parse(expr);
  const errors: number[] = [];
  tree.iterate({ enter: (n) => void (n.type.isError && errors.push(n.from)) });
  if (errors.length > 0) throw new Error(`PromQL syntax error at ${errors[0]} in: ${expr}`);
  const found: { name?: string; pattern?: string }[] = [];
  tree.iterate({
    enter: (ref) => {
      if (ref.name !== 'VectorSelector') return;
      const node = ref.node;
      const identifier = node.getChild('Identifier');
      if (identifier) {
        found.push({ name: text(expr, identifier) });
        return;
      }
      // {__name__="x"} or {__name__=~"x_.*"}
      for (const matcher of node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []) {
        const label = matcher.getChild('LabelName');
        const op = matcher.getChild('MatchOp');
        const value = matcher.getChild('StringLiteral');
        if (!label || !op || !value || text(expr, label) !== '__name__') continue;
        const operator = text(expr, op);
        if (operator === '=') found.push({ name: unquote(text(expr, value)) });
        else if (operator === '=~') found.push({ pattern: unquote(text(expr, value)) });
      }
      return false;
    },
  });
  return found;
}

/**
 * A Grafana variable query: `label_values(selector, label)` selects the selector's metrics,
 * `label_values(label)` none, `query_result(expr)` its expression's, `metrics(regex)` a pattern.
 */
export function variableQueryMetrics(query: string): { name?: string; pattern?: string }[] {
  const q = interpolateGrafana(query.trim());
  let m = /^label_values\(\s*(.+),\s*[A-Za-z_]\w*\s*\)$/s.exec(q);
  if (m) return selectedMetrics(m[1]!);
  if (/^label_values\(\s*[A-Za-z_]\w*\s*\)$/.test(q)) return [];
  m = /^query_result\((.+)\)$/s.exec(q);
  if (m) return selectedMetrics(m[1]!);
  m = /^metrics\((.+)\)$/s.exec(q);
  if (m) return [{ pattern: m[1]!.trim() }];
  // A custom or constant variable (a list of values, no PromQL).
  return [];
}

interface GrafanaPanel {
  targets?: { expr?: string }[];
  panels?: GrafanaPanel[];
}
interface GrafanaDashboard {
  panels?: GrafanaPanel[];
  templating?: { list?: { type?: string; query?: string | { query?: string } }[] };
}

/** Every expression of a dashboard: panel targets (rows' panels too) and query variables. */
export function dashboardQueries(file: string, dashboard: GrafanaDashboard): QueriedMetric[] {
  const out: QueriedMetric[] = [];
  const walk = (panels: GrafanaPanel[] = []) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) {
        if (!target.expr) continue;
        for (const m of selectedMetrics(interpolateGrafana(target.expr))) out.push({ ...m, file, expr: target.expr });
      }
      walk(panel.panels);
    }
  };
  walk(dashboard.panels);
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    if (!query) continue;
    for (const m of variableQueryMetrics(query)) out.push({ ...m, file, expr: query });
  }
  return out;
}

interface RuleFile {
  groups?: { rules?: { expr?: string | number; record?: string; alert?: string }[] }[];
}

/** Every `expr` of a Prometheus rule file, and the names its recording rules make. */
export function ruleQueries(file: string, rules: RuleFile): { queried: QueriedMetric[]; recorded: string[] } {
  const queried: QueriedMetric[] = [];
  const recorded: string[] = [];
  for (const group of rules.groups ?? []) {
    for (const rule of group.rules ?? []) {
      if (rule.record) recorded.push(rule.record);
      if (rule.expr === undefined) continue;
      const expr = String(rule.expr);
      for (const m of selectedMetrics(expr)) queried.push({ ...m, file, expr });
    }
  }
  return { queried, recorded };
}

/** Everything the repository's dashboards and rule files query (found by globbing, so new files join). */
export function repositoryQueries(root: string): { queried: QueriedMetric[]; recorded: string[]; files: string[] } {
  const list = (dir: string, suffix: RegExp) => {
    try {
      return readdirSync(join(root, dir))
        .filter((f) => suffix.test(f))
        .sort()
        .map((f) => join(dir, f));
    } catch {
      return [];
    }
  };
  const dashboards = list('deploy/grafana/dashboards', /\.json$/);
  // Rule files only: promtool's unit-test files (*.test.yml) hold series, not rules.
  const ruleFiles = list('deploy/prometheus/rules', /^(?!.*\.test\.ya?ml$).*\.ya?ml$/);
  const queried: QueriedMetric[] = [];
  const recorded: string[] = [];
  for (const file of dashboards) queried.push(...dashboardQueries(file, JSON.parse(readFileSync(join(root, file), 'utf8')) as GrafanaDashboard));
  for (const file of ruleFiles) {
    const result = ruleQueries(file, parseYaml(readFileSync(join(root, file), 'utf8')) as RuleFile);
    queried.push(...result.queried);
    recorded.push(...result.recorded);
  }
  return { queried, recorded, files: [...dashboards, ...ruleFiles] };
}

/**
 * The metric names one Prometheus text exposition offers: every sample's name, and the names a
 * declared family exposes even before its first sample (prom-client declares labelled metrics
 * up front: the name is right, the series comes with the first event).
 */
export function exposedNames(exposition: string): { names: Set<string>; histograms: Set<string> } {
  const names = new Set<string>();
  const histograms = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)/.exec(line);
    if (type) {
      const [, name, kind] = type as unknown as [string, string, string];
      if (kind === 'histogram') {
        histograms.add(name);
        for (const suffix of ['_bucket', '_count', '_sum']) names.add(name + suffix);
      } else if (kind === 'summary') {
        for (const suffix of ['', '_count', '_sum']) names.add(name + suffix);
      } else names.add(name);
      continue;
    }
    const sample = /^([A-Za-z_:][\w:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]!);
  }
  return { names, histograms };
}

/** The queried metrics no exposition offers (a pattern needs one matching name), with a hint for a histogram's bare name. */
export function missingMetrics(queried: QueriedMetric[], exposed: Set<string>, provided: Set<string>, histograms = new Set<string>()): string[] {
  const missing = new Map<string, Set<string>>();
  for (const q of queried) {
    let key: string | undefined;
    if (q.name !== undefined && !exposed.has(q.name) && !provided.has(q.name)) {
      key = histograms.has(q.name) ? `${q.name} (a histogram: query ${q.name}_bucket, _count or _sum)` : q.name;
    } else if (q.pattern !== undefined) {
      const re = new RegExp(`^(?:${q.pattern})$`);
      if (![...exposed, ...provided].some((n) => re.test(n))) key = `{__name__=~"${q.pattern}"}`;
    }
    if (key) (missing.get(key) ?? missing.set(key, new Set()).get(key)!).add(q.file);
  }
  return [...missing].map(([name, files]) => `${name} — queried by ${[...files].join(', ')}`).sort();
}
