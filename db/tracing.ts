/**
 * SQL spans. postgres.js has no OpenTelemetry instrumentation, so with tracing on
 * createSql (db/sql.ts) wraps the pool in this proxy: each statement sent gets a client span, each
 * transaction (`sql.begin`, one span per attempt of db/sql.ts's retry) a span its statements are
 * children of. A span names the statement by its operation and table (`SELECT deals`, `SELECT
 * claim_create`), read from the template's own text: never parameters, never values, never the
 * error message (it can quote a value) — a failure records its SQLSTATE only.
 */
import type * as OtelApi from '@opentelemetry/api';
import type { Tracing } from '../config/tracing';

/** Any function: what the proxy wraps (the pool, a transaction, a savepoint). */
type AnyFn = (...args: never[]) => unknown;
/** A function the proxy calls with the arguments it was given, whatever they are. */
type Forward = (...args: unknown[]) => unknown;
type Query = Promise<unknown> & { handle?: () => unknown };

const summaries = new WeakMap<object, { name: string; operation: string; table?: string }>();
const KEYWORD_RE = /^\s*([a-z]+)/i;
const TABLE_RE = /\b(?:from|into|update|join)\s+([a-z_][a-z0-9_]*)/i;
const FUNCTION_RE = /^\s*select\s+(?:\*\s+from\s+)?([a-z_][a-z0-9_]*)\s*\(/i;

/** `SELECT deals`: the statement's operation and first table (or called function), from its text. */
function summarize(text: string): { name: string; operation: string; table?: string } {
  const operation = (KEYWORD_RE.exec(text)?.[1] ?? 'sql').toUpperCase();
  const table = FUNCTION_RE.exec(text)?.[1] ?? TABLE_RE.exec(text)?.[1];
  return { name: table ? `${operation} ${table.toLowerCase()}` : operation, operation, ...(table ? { table: table.toLowerCase() } : {}) };
}

function summaryOf(strings: TemplateStringsArray) {
  let summary = summaries.get(strings);
  if (!summary) {
    summary = summarize(strings.join('$'));
    summaries.set(strings, summary);
  }
  return summary;
}

const isTemplate = (value: unknown): value is TemplateStringsArray => Array.isArray(value) && 'raw' in value;

export function tracedSql<T extends AnyFn>(sql: T, traces: Tracing): T {
  const { api, tracer } = traces;
  const attributes = (summary: { operation: string; table?: string }): OtelApi.Attributes => ({
    'db.system': 'postgresql',
    'db.system.name': 'postgresql',
    'db.operation.name': summary.operation,
    ...(summary.table ? { 'db.collection.name': summary.table } : {}),
  });
  const failed = (span: OtelApi.Span, error: unknown) => {
    const code = (error as { code?: unknown } | null)?.code;
    span.setAttribute('error.type', typeof code === 'string' ? code : 'error');
    span.setStatus({ code: api.SpanStatusCode.ERROR });
  };

  /** The span starts when postgres.js sends the query (its first then/catch/execute), in the caller's context; fragments never do. */
  const instrument = (query: Query, summary: { name: string; operation: string; table?: string }) => {
    const handle = query.handle;
    if (typeof handle !== 'function') return query;
    let started = false;
    query.handle = function (this: Query, ...args: unknown[]) {
      if (!started) {
        started = true;
        const span = tracer.startSpan(summary.name, { kind: api.SpanKind.CLIENT, attributes: attributes(summary) });
        // Promise.prototype.then, not the query's own: observing the answer must not send it again.
        Promise.prototype.then.call(
          query,
          () => span.end(),
          (error: unknown) => {
            failed(span, error);
            span.end();
          },
        );
      }
      return (handle as Forward).apply(this, args);
    };
    return query;
  };

  const wrap = <F extends AnyFn>(target: F): F =>
    new Proxy(target, {
      apply(fn, thisArg, args) {
        const result = Reflect.apply(fn, thisArg, args);
        return isTemplate(args[0]) ? instrument(result as Query, summaryOf(args[0])) : result;
      },
      get(fn, property, receiver) {
        const value = Reflect.get(fn, property, receiver);
        if (property === 'unsafe') {
          return (text: string, ...rest: unknown[]) => instrument((value as Forward).call(fn, text, ...rest) as Query, summarize(String(text)));
        }
        if (property === 'begin' || property === 'savepoint') {
          return (...args: unknown[]) => {
            const body = args.pop() as Forward;
            return tracer.startActiveSpan(
              property === 'begin' ? 'transaction' : 'savepoint',
              { kind: api.SpanKind.CLIENT, attributes: attributes({ operation: property === 'begin' ? 'BEGIN' : 'SAVEPOINT' }) },
              async (span) => {
                try {
                  return await (value as Forward).call(fn, ...args, (tx: Forward) => body(wrap(tx)));
                } catch (error) {
                  failed(span, error);
                  throw error;
                } finally {
                  span.end();
                }
              },
            );
          };
        }
        return value;
      },
    });
  return wrap(sql);
}
