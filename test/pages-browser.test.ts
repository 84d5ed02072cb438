import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAccessibility } from './support/a11y-probe.js';
import { HOSTILE_URL, hostilePagesRepo } from './support/pages-repo.js';
import { runCli } from './support/run-cli.js';
import { repoRoot } from './support/temp-repo.js';

const CHROMIUM = process.env.KNOC_TEST_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
/** CI machines set CI (GitHub Actions, GitLab, most others); `CI=false` or `CI=0` means a developer machine. */
const inCI = process.env.CI !== undefined && process.env.CI !== '' && !/^(0|false)$/i.test(process.env.CI);
const artifacts = path.join(repoRoot, 'test-artifacts', 'pages');
const PAGES = [
  { name: 'fleet', path: '/' },
  { name: 'agent-drift-sentinel', path: '/agents/drift-sentinel/' },
  { name: 'agent-schema-reviewer', path: '/agents/schema-reviewer/' },
];
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

if (!haveChromium && !inCI) {
  console.warn(`pages-browser: skipped, ${CHROMIUM} is missing (apt-get install chromium); in CI this fails instead`);
}

describe.runIf(!haveChromium && inCI)('pages in a browser (CI)', () => {
  it(`needs Chromium at ${CHROMIUM}`, () => {
    throw new Error(`${CHROMIUM} is missing; .ci/run installs it with apt-get install chromium`);
  });
});

describe.skipIf(!haveChromium)('pages in headless Chromium, served by knoc serve', () => {
  let server: ChildProcess;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    const root = hostilePagesRepo();
    const built = runCli(['build', '--root', root]);
    expect(built.status, built.stderr).toBe(0);
    server = spawn(process.execPath, [path.join(repoRoot, 'bin/knoc.js'), 'serve', '--port', '0', path.join(root, 'dist')], { stdio: ['ignore', 'pipe', 'pipe'] });
    base = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const url = /(http:\/\/\S+)/.exec(out)?.[1];
        if (url) resolve(url);
      });
      server.on('exit', (code) => reject(new Error(`knoc serve exited with ${code}`)));
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    mkdirSync(artifacts, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    server?.kill('SIGTERM');
  });

  describe.each(VIEWPORTS)('at $name width', (viewport) => {
    it.each(PAGES)('$name loads without errors, is accessible, and is saved as a screenshot', async (target) => {
      for (const colorScheme of ['light', 'dark'] as const) {
        const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, colorScheme, javaScriptEnabled: true });
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
        page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        page.on('dialog', (d) => {
          problems.push(`dialog: ${d.message()}`);
          void d.dismiss();
        });
        page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
        const external: string[] = [];
        page.on('request', (r) => !r.url().startsWith(base) && external.push(r.url()));
        const response = await page.goto(new URL(target.path, base).href, { waitUntil: 'load' });
        expect(response?.status()).toBe(200);

        const facts = await page.evaluate(probeAccessibility);
        expect(facts.lang).toBe('en');
        expect(facts.h1).toBe(1);
        expect(facts.landmarks.banner).toBe(1);
        expect(facts.landmarks.navigation).toBeGreaterThanOrEqual(1);
        expect(facts.landmarks.main).toBe(1);
        expect(facts.landmarks.contentinfo).toBe(1);
        expect(facts.headingJumps).toEqual([]);
        expect(facts.unnamedGraphics).toEqual([]);
        expect(facts.unnamedLinks).toEqual([]);
        expect(facts.lowContrast, colorScheme).toEqual([]);
        expect(facts.overflowX, 'no sideways scrolling of the page').toBeLessThanOrEqual(0);

        const suffix = colorScheme === 'light' ? '' : '-dark';
        await page.screenshot({ path: path.join(artifacts, `${target.name}-${viewport.name}${suffix}.png`), fullPage: true });

        // Keyboard focus is visible: the first Tab lands on the skip link, outlined.
        await page.keyboard.press('Tab');
        const focus = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement;
          const style = getComputedStyle(el);
          return { text: el.textContent, outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
        });
        expect(focus.text).toBe('Skip to content');
        expect(focus.outline).not.toBe('none');
        expect(focus.width).toBeGreaterThanOrEqual(2);

        expect(problems).toEqual([]);
        expect(external, 'self-contained: no request leaves the site').toEqual([]);
        await context.close();
      }
      expect(existsSync(path.join(artifacts, `${target.name}-${viewport.name}.png`))).toBe(true);
    }, 120_000);
  });

  it('renders a <script> in a description as visible, inert text', async () => {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    for (const target of ['/', '/agents/drift-sentinel/']) {
      await page.goto(new URL(target, base).href, { waitUntil: 'load' });
      const text = page.getByText('<script>alert("pwned")</script><img src=x onerror=alert(2)> Finds drift', { exact: true });
      await expect(text.first().isVisible()).resolves.toBe(true);
      expect(await page.locator('main script, main img').count()).toBe(0);
    }
    // The documentation URL that tries to close its attribute is one link, to exactly that URL.
    expect(await page.locator('a[href^="https://example.org/docs"]').getAttribute('href')).toBe(HOSTILE_URL);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await page.close();
  }, 120_000);

  it('resolves every link between pages and to the JSON cards', async () => {
    const page = await browser.newPage();
    const checked = new Map<string, number>();
    const queue = ['/'];
    const seen = new Set(queue);
    while (queue.length > 0) {
      const current = new URL(queue.shift()!, base).href;
      const response = await page.goto(current, { waitUntil: 'load' });
      expect(response?.status(), current).toBe(200);
      if (!response?.headers()['content-type']?.startsWith('text/html')) continue;
      const links = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
      for (const href of links) {
        const url = new URL(href);
        if (url.origin !== new URL(base).origin) {
          expect(url.protocol, href).toMatch(/^https?:$/);
          continue;
        }
        if (url.hash) {
          // A fragment names an element on its page.
          const onPage = new URL(url.pathname, base).href === new URL(new URL(current).pathname, base).href;
          if (!onPage && !seen.has(url.pathname)) {
            seen.add(url.pathname);
            queue.push(url.pathname);
          }
          const targetPage = onPage ? page : await browser.newPage();
          if (!onPage) await targetPage.goto(url.href, { waitUntil: 'load' });
          expect(await targetPage.locator(`[id="${decodeURIComponent(url.hash.slice(1))}"]`).count(), href).toBe(1);
          if (!onPage) await targetPage.close();
          continue;
        }
        if (!seen.has(url.pathname)) {
          seen.add(url.pathname);
          queue.push(url.pathname);
        }
      }
      checked.set(current, response.status());
    }
    for (const must of ['/.well-known/agent-card.json', '/agents/drift-sentinel/.well-known/agent-card.json', '/agents/schema-reviewer/.well-known/agent-card.json', '/agents/drift-sentinel/index.html', '/index.html', '/manifest.json', '/index/agents.json']) {
      expect(seen.has(must), must).toBe(true);
    }
    const card = await page.request.get(new URL('/agents/drift-sentinel/.well-known/agent-card.json', base).href);
    expect(card.status()).toBe(200);
    expect(card.headers()['content-type']).toBe('application/json; charset=utf-8');
    expect((await card.json()).name).toBe('Drift Sentinel');
    await page.close();
  }, 120_000);
});
