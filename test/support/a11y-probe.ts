/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// This file runs inside the browser under test, so it is typed against the DOM.
/**
 * Accessibility facts about the page it runs in, collected in the browser
 * (passed to page.evaluate, so it must not close over anything).
 */
export function probeAccessibility(): {
  lang: string;
  h1: number;
  landmarks: Record<string, number>;
  headingJumps: string[];
  unnamedGraphics: string[];
  unnamedLinks: string[];
  lowContrast: string[];
  overflowX: number;
} {
  const parse = (color: string): number[] => (color.match(/[\d.]+/g) ?? ['0', '0', '0', '0']).map(Number);
  const luminance = ([r, g, b]: number[]) => {
    const lin = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
  };
  const background = (el: Element | null): number[] => {
    for (let node = el; node; node = node.parentElement) {
      const c = parse(getComputedStyle(node).backgroundColor);
      if (c.length < 4 || c[3]! > 0) return c;
    }
    return [255, 255, 255];
  };
  const name = (el: Element): string => {
    const labelled = el.getAttribute('aria-labelledby');
    if (labelled) return labelled.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
    return (el.getAttribute('aria-label') ?? el.getAttribute('alt') ?? el.querySelector(':scope > title')?.textContent ?? el.textContent ?? '').trim();
  };
  const describe = (el: Element) => `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}"`;

  const headings = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) => Number(h.tagName[1]));
  const headingJumps = headings.flatMap((level, i) => (i === 0 ? (level === 1 ? [] : [`starts at h${level}`]) : level > headings[i - 1]! + 1 ? [`h${headings[i - 1]} -> h${level}`] : []));
  const lowContrast: string[] = [];
  for (const el of document.querySelectorAll('body *')) {
    const ownText = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
    const rect = el.getBoundingClientRect();
    if (!ownText || rect.width === 0 || el.closest('svg') || getComputedStyle(el).visibility === 'hidden' || rect.right < 0) continue;
    const fg = luminance(parse(getComputedStyle(el).color));
    const bg = luminance(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (ratio < 4.5) lowContrast.push(`${describe(el)} ${ratio.toFixed(2)}`);
  }
  return {
    lang: document.documentElement.lang,
    h1: document.querySelectorAll('h1').length,
    landmarks: {
      banner: document.querySelectorAll('body > header').length,
      navigation: document.querySelectorAll('nav').length,
      main: document.querySelectorAll('main').length,
      contentinfo: document.querySelectorAll('body > footer').length,
    },
    headingJumps,
    unnamedGraphics: [...document.querySelectorAll('img, svg')].filter((g) => (g.tagName.toLowerCase() === 'svg' && g.getAttribute('role') !== 'img') || name(g) === '').map(describe),
    unnamedLinks: [...document.querySelectorAll('a[href]')].filter((a) => name(a) === '').map((a) => a.getAttribute('href') ?? ''),
    lowContrast,
    overflowX: document.documentElement.scrollWidth - window.innerWidth,
  };
}
