/** The most characters of a value from the input that a message quotes; a longer one is cut. */
export const QUOTED_VALUE_LIMIT = 80;

/**
 * A value as a message quotes it: whole when it is at most `max` characters,
 * else its first `max - 1` and `…`, so that a name of megabytes reads as its
 * start. A surrogate pair is never split.
 */
export function shortenValue(text: string, max: number = QUOTED_VALUE_LIMIT): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return `${text.slice(0, cut)}…`;
}
