/**
 * A URL that may go into an `href`: only absolute http(s) URLs, so a
 * `javascript:` or `data:` URL in a blueprint is shown as text and never
 * becomes a link. Escaping is the template's job; this decides linking.
 */
export function safeHref(value: unknown): string | null {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

/** Text plus the href it may link to (null: render as text only). */
export interface LinkView {
  text: string;
  href: string | null;
}

/** A value as link text and, when it is an http(s) URL, its href. */
export function linkOf(value: unknown): LinkView {
  return { text: typeof value === 'string' ? value : '', href: safeHref(value) };
}
