/**
 * Text for people: control characters neutralised. Names and texts come from upstream APIs and
 * imported OrcBrew files; printed raw, an ESC (ANSI/OSC sequences), a NUL, a C1 control or a
 * bidirectional override could rewrite the terminal, hide text or change what a reader sees.
 * Every human-readable output (CLI tables and reports, list_documents format=text, doctor) passes
 * through `safeText`; JSON output needs nothing (JSON escapes controls) except C1 and bidi
 * controls, which `safeText` also replaces. Pure.
 */

// C0 controls except tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates, line/paragraph separators.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
const UNSAFE_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** `s` with every unsafe control character replaced by U+FFFD (tabs and newlines kept). */
export function safeText(s: string): string {
  return s.replace(UNSAFE, "\ufffd");
}

/** One line of `s`: also newlines and tabs replaced (names, table cells). */
export function safeLine(s: string): string {
  return s.replace(UNSAFE_ONE_LINE, "\ufffd");
}

/** `s` cut to at most `max` characters (about), saying how much was left out. */
export function capText(s: string, max: number): string {
  if (s.length <= max) return s;
  const keep = Math.max(0, max - 40);
  return `${s.slice(0, keep)}… (${s.length - keep} more characters)`;
}

/** One short safe line of `s` (a wheel's License field, a config's model name): controls replaced, shortened. */
export function cleanLabel(s: string, max = 200): string {
  return capText(safeLine(s.trim()), max);
}

// Characters JSON.stringify leaves raw that a terminal may still act on: DEL, C1 controls, bidi controls, separators.
const JSON_RAW_UNSAFE = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * JSON text with the characters JSON.stringify leaves raw (C1 and bidi controls) written as
 * `\uXXXX` escapes: the same JSON value, safe to print. C0 controls are escaped by JSON already.
 */
export function safeJson(json: string): string {
  return json.replace(JSON_RAW_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
