/**
 * Text from an input file made safe for a terminal or a CI log: control
 * characters (ANSI escapes, carriage returns, NUL, bidi overrides) are shown
 * as `\u{..}` instead of being sent raw, so a hostile file cannot rewrite the
 * log around it. So are the characters that print as nothing (a zero-width
 * space, a soft hyphen, a word joiner), so that `schemas` followed by one is
 * not reported as an unknown `schemas`. Newlines and tabs are left to the caller.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/** Like `printable`, and a line break is shown too: for one-line fields such as a message or a file name. */
export function printableLine(text: string): string {
  return printable(text).replace(/[\n\t\u2028\u2029]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}
