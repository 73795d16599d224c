/**
 * What text the gateway accepts. Everywhere: no NUL or other C0/C1 control characters but tab,
 * LF and CR, no DEL, and well-formed Unicode (no lone surrogates). Single-line fields (keys,
 * names, ids, URLs) refuse tab, LF and CR as well.
 */

// \p{Cc} is exactly C0, DEL and C1 (U+0000–U+001F, U+007F–U+009F).
const UNSAFE_ANYWHERE = /(?![\t\n\r])\p{Cc}/u;
const UNSAFE_IN_LINE = /\p{Cc}/u;
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
