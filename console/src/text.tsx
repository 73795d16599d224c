/**
 * The one way the console shows text that others chose: names, emails, reasons, messages, file
 * names. A bidirectional control character (an embedding, override or isolate, or a directional
 * mark) could make "\u202Egnp.exe" read as "exe.png"; each is replaced by a visible marker naming
 * it, and the whole is isolated (<bdi>) so a right-to-left name cannot reorder the text around it.
 * Plain strings (titles, labels, attributes) go through `plainText`, the same replacement.
 */
import type { ReactNode } from 'react';

const BIDI_NAMES: Record<string, string> = {
  '\u200E': 'LRM',
  '\u200F': 'RLM',
  '\u202A': 'LRE',
  '\u202B': 'RLE',
  '\u202C': 'PDF',
  '\u202D': 'LRO',
  '\u202E': 'RLO',
  '\u2066': 'LRI',
  '\u2067': 'RLI',
  '\u2068': 'FSI',
  '\u2069': 'PDI',
};
const BIDI = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** The marker that stands for one control character, e.g. "[RLO]". */
const marker = (char: string) => `[${BIDI_NAMES[char] ?? `U+${char.codePointAt(0)!.toString(16).toUpperCase()}`}]`;

/** The text with every bidirectional control character replaced by its visible marker. */
export function plainText(value: string | null | undefined): string {
  return (value ?? '').replace(BIDI, marker);
}

/** Whether the text holds a bidirectional control character. */
const hasBidiControls = (value: string | null | undefined) => new RegExp(BIDI.source).test(value ?? '');

/**
 * Text as shown: isolated, each control character as a marked-up marker (and a title saying why).
 * `title` (optional) is the hover text, e.g. the object's id.
 */
export function Text({ value, title, className }: { value: string | null | undefined; title?: string; className?: string }) {
  const text = value ?? '';
  if (!hasBidiControls(text))
    return (
      <bdi className={className} title={title}>
        {text}
      </bdi>
    );
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(BIDI)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push(
      <mark key={match.index} className="bidi-mark">
        {marker(match[0])}
      </mark>,
    );
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return (
    <bdi
      className={className}
      title={[title, 'contains bidirectional control characters, shown as [..] markers'].filter(Boolean).join(' — ')}
      data-bidi="marked"
    >
      {parts}
    </bdi>
  );
}
