/**
 * What text the gateway accepts. Everywhere: no NUL or other C0/C1 control characters but tab,
 * LF and CR, no DEL, and well-formed Unicode (no lone surrogates). Single-line fields (keys,
 * names, ids, URLs) refuse tab, LF and CR as well.
 */

// eslint-disable-next-line no-control-regex
const UNSAFE_ANYWHERE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_LINE = /[\u0000-\u001F\u007F-\u009F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export type TextProblem = 'a control character' | 'an invalid unicode sequence';

export function textProblem(value: string, singleLine = false): TextProblem | undefined {
  if (LONE_SURROGATE.test(value)) return 'an invalid unicode sequence';
  if ((singleLine ? UNSAFE_IN_LINE : UNSAFE_ANYWHERE).test(value)) return 'a control character';
  return undefined;
}

/** The first string (key or value) anywhere in a parsed JSON value that breaks the baseline rule. */
export function firstUnsafeText(value: unknown, path = ''): { field: string; problem: TextProblem } | undefined {
  const name = (p: string) => p || '(body)';
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { field: name(path), problem } : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const childPath = path ? `${path}.${key}` : key;
    const keyProblem = textProblem(key, true);
    if (keyProblem) return { field: `${name(path)} (a key)`, problem: keyProblem };
    const found = firstUnsafeText(child, childPath);
    if (found) return found;
  }
  return undefined;
}
