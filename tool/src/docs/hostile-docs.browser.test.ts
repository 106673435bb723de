import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { createLogger } from '@restbus/infra';
import { recordHostileCounts } from '@restbus/infra/testing';
import { startMockServer, type MockServer } from '@restbus/mock-server';
import { writeFiles } from './__tests__/fixture-project';
import { hostileOpenApi, hostileProjectFiles, PAYLOAD_COUNT } from './__tests__/hostile-project';
import { MANIFEST_FILE } from './docs-manifest';
import { generateDocs } from './generate-docs';
import { importOpenApi } from '../import-oas/import-openapi';
import { ARTIFACTS, launchChromium } from './__tests__/launch-chromium';

// The docs of a project written by an attacker, served by the mock server as users open them (`/docs/` on the API's
// own origin) in Debian's Chromium: every page opened, every link, button and summary clicked. No dialog may open,
// no page may leave the local server (a plainly off-site link opens apart: new tab, no opener), nothing may be
// fetched from another host, and no script of the project's may run or be refused by the page's policy.

/** What a run found; every count is expected to be zero. */
interface Found {
  dialogs: number;
  offsiteNavigations: number;
  offsiteRequests: number;
  scriptErrors: number;
  injectedElements: number;
}

/** What a run tried. */
interface Tried {
  pages: number;
  links: number;
  clicks: number;
  buttons: number;
  externalLinks: number;
}

/** What went wrong, one line each, for the failure message. */
type Evidence = string[];

/** An element clicked: what it was. */
interface Clicked {
  tag: string;
  href: string;
  target: string;
  rel: string;
}

const isExplicitExternal = (clicked: Clicked | undefined): boolean =>
  !!clicked &&
  clicked.tag === 'a' &&
  /^https?:\/\//i.test(clicked.href) &&
  clicked.target === '_blank' &&
  clicked.rel.split(/\s+/).includes('noopener');

/** Elements and attributes no generated page has of its own: only an injection could put them there. */
const countInjected = (page: Page): Promise<string[]> =>
  page.evaluate(() => {
    const found: string[] = [];
    for (const element of document.querySelectorAll('*')) {
      for (const attribute of element.getAttributeNames()) {
        if (attribute.startsWith('on') || attribute === 'srcdoc' || attribute === 'formaction') {
          found.push(`<${element.localName} ${attribute}>`);
        }
      }
    }
    const ours = (element: Element): boolean =>
      element.localName === 'script' &&
      /(^|\/)(service-list|assets\/docs)\.js$/.test(element.getAttribute('src') ?? '');
    // (An image of the docs' own site is Markdown's: one from elsewhere is caught as a request.)
    const selector =
      'script, iframe, frame, object, embed, svg, math, base, style, link:not([rel="stylesheet"]):not([rel="icon"]), meta[http-equiv="refresh"], form:not(.try-it-form), video, audio';
    for (const element of document.querySelectorAll(selector)) {
      if (!ours(element)) found.push(`<${element.localName}>`);
    }
    return found;
  });

/**
 * How long a click, a tab that should open or a Try-it answer may take before the test gives up on it: for a hang
 * only. A click waits for the navigation it starts, and on a loaded machine that took over the 5 s it once had.
 */
const ACTION_DEADLINE_MS = 60_000;

/** What `promise` brings within `ms`, else undefined; a Node timer, so that nothing is left waiting on a closed page. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** What the tab a plainly off-site link opens is given instead of the other site: a page that reports itself. */
const ELSEWHERE = '<!doctype html><title>elsewhere</title>';

/**
 * Opens every page of docs served at `base`, clicks everything clickable on it, and counts what got through. The
 * context aborts every request that does not go to the local server, so nothing ever leaves the machine.
 */
async function attackDocs(
  browser: Browser,
  base: string,
  pages: string[],
): Promise<{ tried: Tried; found: Found; evidence: Evidence }> {
  const origin = new URL(base).origin;
  const isLocal = (url: string): boolean =>
    url.startsWith(`${origin}/`) || url.startsWith('data:') || url === 'about:blank';
  const tried: Tried = { pages: 0, links: 0, clicks: 0, buttons: 0, externalLinks: 0 };
  const found: Found = { dialogs: 0, offsiteNavigations: 0, offsiteRequests: 0, scriptErrors: 0, injectedElements: 0 };
  const evidence: Evidence = [];
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  /** The docs' own tab, once open. */
  const tabs: { docs?: Page } = {};
  /** Set while the docs' own tab opens: the 'page' event comes before newPage() returns it. */
  let openingDocsPage = false;
  /** Set while a plainly off-site link is clicked: the one new tab allowed, handed to the click. */
  let expectTab: ((tab: Page) => void) | undefined;
  let where = '';
  /** Set while an element is clicked. */
  let clicking = false;
  /** The pages of the site the clicks led to, without their fragment: opened one by one after the clicks. */
  const leadsTo = new Set<string>();
  const isDocsTab = (request: Request): boolean => {
    try {
      return request.frame().page() === tabs.docs;
    } catch {
      // A new tab's first request comes before its frame: not the docs' tab.
      return false;
    }
  };

  context.on('page', (opened) => {
    opened.on('dialog', (dialog) => {
      found.dialogs++;
      evidence.push(`dialog "${dialog.message()}" on ${where}`);
      void dialog.dismiss().catch(() => undefined);
    });
    opened.on('pageerror', (error) => {
      found.scriptErrors++;
      evidence.push(`page error on ${where}: ${error.message}`);
    });
    opened.on('console', (message) => {
      // Chromium's own lines: a 404 of a link's target or a Try-it answer, and Try-it's call refusing to follow a
      // redirect off the site (same-origin mode: the request is never sent).
      const text = message.text();
      if (message.type() !== 'error' || /^(Failed to load resource|Unsafe attempt to load URL)/.test(text)) return;
      found.scriptErrors++;
      evidence.push(`console error on ${where}: ${text}`);
    });
    if (openingDocsPage) return;
    if (expectTab) {
      expectTab(opened);
      expectTab = undefined;
      return;
    }
    found.offsiteNavigations++;
    evidence.push(`a new tab opened from ${where}`);
    void opened.close().catch(() => undefined);
  });
  await context.route('**/*', async (route) => {
    const request = route.request();
    const url = request.url();
    if (isLocal(url)) {
      // A click that leads the docs' tab to a page of the site: the page is opened once later, by itself, and the tab
      // stays where it is (a 204 ends a navigation in place). Going there and back after each click loaded two pages
      // a click, most of this test's time.
      if (clicking && request.isNavigationRequest() && request.method() === 'GET' && isDocsTab(request)) {
        leadsTo.add(url.split('#')[0]);
        return route.fulfill({ status: 204 });
      }
      return route.continue();
    }
    const fromDocs = isDocsTab(request);
    if (request.isNavigationRequest() && !fromDocs && expectTab) {
      return route.fulfill({ contentType: 'text/html', body: ELSEWHERE });
    }
    if (request.isNavigationRequest()) found.offsiteNavigations++;
    else found.offsiteRequests++;
    evidence.push(`${request.resourceType()} request to ${url} from ${where}`);
    return route.abort();
  });

  openingDocsPage = true;
  tabs.docs = await context.newPage();
  openingDocsPage = false;
  const page = tabs.docs;
  const openAllDetails = (): Promise<void> =>
    page.evaluate(() => {
      for (const details of document.querySelectorAll('details')) details.open = true;
    });
  const clickable = page.locator('a, button, summary, input[type="submit"]');
  const followed = new Set<string>();

  for (const path of pages) {
    const pageUrl = new URL(path, base).href;
    where = path;
    const response = await page.goto(pageUrl);
    expect({ path, status: response?.status() }).toEqual({ path, status: 200 });
    tried.pages++;
    await openAllDetails();
    for (const injected of await countInjected(page)) {
      found.injectedElements++;
      evidence.push(`${injected} on ${path}`);
    }
    const count = await clickable.count();
    for (let i = 0; i < count; i++) {
      if (page.url().split('#')[0] !== pageUrl) {
        // Back from where the last click led (from the back/forward cache mostly), else loaded again.
        await page.goBack({ waitUntil: 'load' }).catch(() => undefined);
        if (page.url().split('#')[0] !== pageUrl) await page.goto(pageUrl);
        await openAllDetails();
      }
      const element = clickable.nth(i);
      const { reachable, resolved, ...clicked } = await element.evaluate((node) => {
        const box = node.getBoundingClientRect();
        return {
          tag: node.localName,
          resolved: node instanceof HTMLAnchorElement ? `${node.href} ${node.target} ${node.rel} ${node.download}` : '',
          href: node.getAttribute('href') ?? '',
          target: node.getAttribute('target') ?? '',
          rel: node.getAttribute('rel') ?? '',
          // Where a pointer can reach it (not hidden, not moved off the page like the skip link).
          reachable: box.width > 1 && box.height > 1 && box.left + window.scrollX >= 0 && box.top + window.scrollY >= 0,
        };
      });
      where = `${path} #${i} ${JSON.stringify(clicked)}`;
      if (clicked.tag === 'a') tried.links++;
      else tried.buttons++;
      // A link does what its resolved URL, target and rel say (its handlers are counted as injected above): each
      // such link is clicked once over all pages, so that every page's sidebar is not followed again each time.
      if (resolved) {
        if (followed.has(resolved)) continue;
        followed.add(resolved);
      }
      tried.clicks++;
      const external = isExplicitExternal(clicked);
      const tab = external ? new Promise<Page>((resolve) => (expectTab = resolve)) : undefined;
      // A real click where the element can be seen; a synthetic one (which follows a link all the same) elsewhere.
      clicking = true;
      try {
        if (reachable && (await element.isVisible())) await element.click({ timeout: ACTION_DEADLINE_MS });
        else await element.dispatchEvent('click');
      } finally {
        clicking = false;
      }
      if (tab) {
        // The other site's page must get no handle on the docs (window.opener) and not learn their URL.
        const opened = await within(tab, ACTION_DEADLINE_MS);
        expectTab = undefined;
        const seen = await opened?.waitForLoadState().then(() =>
          opened.evaluate(() => ({
            opener: window.opener !== null,
            referrer: document.referrer,
            title: document.title,
          })),
        );
        if (seen && !seen.opener && !seen.referrer && seen.title === 'elsewhere') tried.externalLinks++;
        else {
          found.offsiteNavigations++;
          evidence.push(`the tab of ${where}: ${JSON.stringify(seen ?? 'never opened')}`);
        }
        await opened?.close();
      }
      // Try-it answers arrive after the click: wait for the form to be done before going on.
      await page.waitForFunction(() => !document.querySelector('[aria-busy]'), undefined, {
        timeout: ACTION_DEADLINE_MS,
      });
      await page.waitForLoadState('load');
      // An aborted navigation of the docs' tab leaves it on Chromium's error page: counted above, and seen here.
      if (!isLocal(page.url())) {
        evidence.push(`the docs' tab is on ${page.url()} after ${where}`);
      }
      if (clicked.tag === 'summary') await openAllDetails();
    }
  }
  // Where the clicks led, each page once (those opened above already are not again), watched as the docs' pages are.
  const opened = new Set(pages.map((path) => new URL(path, base).href));
  for (const target of leadsTo) {
    if (opened.has(target)) continue;
    where = `${target}, where a click led`;
    tried.pages++;
    await page.goto(target);
    if (!isLocal(page.url())) evidence.push(`the docs' tab is on ${page.url()} after opening ${target}`);
  }
  // Whatever was still on its way (a script run late, a tab being opened) is counted too.
  await page.waitForTimeout(200);
  await context.close();
  return { tried, found, evidence };
}

let root: string;
let browser: Browser;
const servers: MockServer[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rest-tool-hostile-docs-'));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  for (const server of servers) await server.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** Generates the docs of the project in `dir`, serves them, and lists the pages the manifest says it wrote. */
async function serveDocs(dir: string): Promise<{ base: string; pages: string[] }> {
  await generateDocs({ projectDir: dir });
  const manifest = JSON.parse(await readFile(join(dir, 'docs', MANIFEST_FILE), 'utf8')) as { files: object };
  const pages = Object.keys(manifest.files).filter((path) => path.endsWith('.html'));
  const logger = createLogger({ name: 'mock', level: 'silent' });
  const server = await startMockServer({ projectDir: dir, port: 0, host: '127.0.0.1', watch: false, logger });
  servers.push(server);
  return { base: `${server.url}/docs/`, pages };
}

describe('docs generated from a hostile project, served and clicked through in a headless Chromium', () => {
  // Its deadline (below) is for a hang only: the test takes about 100 s on a loaded 2-core machine.
  it('open no dialog, leave the site nowhere and run none of the project text, imported OpenAPI included', async () => {
    const hostile = await serveDocs(await writeFiles(await mkdtemp(join(root, 'project-')), hostileProjectFiles()));
    const cwd = await mkdtemp(join(root, 'import-'));
    await writeFile(join(cwd, 'hostile.yaml'), hostileOpenApi());
    const imported = await serveDocs((await importOpenApi({ cwd, file: 'hostile.yaml', folder: 'api' })).dir);

    // Side by side, each in its own browser context: most of the time goes in waiting for pages.
    const runs = await Promise.all([
      attackDocs(browser, hostile.base, hostile.pages),
      attackDocs(browser, imported.base, imported.pages),
    ]);
    const sum = <T extends object>(pick: (run: (typeof runs)[number]) => T): T =>
      runs.map(pick).reduce((total, counts) => {
        const added = { ...total } as Record<string, number>;
        for (const [key, value] of Object.entries(counts)) added[key] = (added[key] ?? 0) + (value as number);
        return added as T;
      });
    const tried = sum((run) => run.tried);
    const found = sum((run) => run.found);
    recordHostileCounts('docs', { tried: { ...tried, payloads: PAYLOAD_COUNT }, found: { ...found } });

    expect(runs.flatMap((run) => run.evidence).slice(0, 40)).toEqual([]);
    expect(found).toEqual({
      dialogs: 0,
      offsiteNavigations: 0,
      offsiteRequests: 0,
      scriptErrors: 0,
      injectedElements: 0,
    });
    // Everything was reached: each hostile page, its links and the Try-it buttons.
    expect(tried.pages).toBeGreaterThanOrEqual(8);
    expect(tried.links).toBeGreaterThan(100);
    expect(tried.buttons).toBeGreaterThan(10);
    expect(tried.externalLinks).toBeGreaterThan(0);
  }, 900_000);

  it('show the hostile text as text a reader can see, and keep the links the policy allows', async () => {
    const { base } = await serveDocs(await writeFiles(await mkdtemp(join(root, 'shown-')), hostileProjectFiles()));
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(new URL('services/links/service.html', base).href);
    expect(await page.locator('h1').textContent()).toBe('Links "><img src=x onerror=alert(1)>');
    const description = page.locator('.description');
    // A script link keeps its text, without a link (below: every link left is on the site, or opens apart).
    expect(await description.textContent()).toContain('script 0 and script image 0');
    const links = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLAnchorElement>('main a[href]')].map((a) => ({
        href: a.href,
        target: a.target,
        rel: a.rel,
      })),
    );
    for (const link of links) {
      const url = new URL(link.href);
      if (url.origin === new URL(base).origin || url.protocol === 'mailto:') continue;
      expect(link).toEqual({ href: link.href, target: '_blank', rel: 'noopener noreferrer' });
      expect(url.protocol).toMatch(/^https?:$/);
    }
    await mkdir(ARTIFACTS, { recursive: true });
    await page.locator('section#GET .details').evaluate((details) => details.scrollIntoView());
    await page.screenshot({ path: join(ARTIFACTS, 'hostile-docs-links.png') });
    // Try it calls this site's API only: a URI template that reads as another host is refused, and said so.
    await page.goto(new URL('services/backslash/service.html', base).href);
    const tryIt = page.locator('section#GET details.try-it');
    await tryIt.locator('summary').click();
    await tryIt.getByRole('button', { name: 'Send' }).click();
    expect(await tryIt.locator('.try-it-problem').textContent()).toBe(
      "/\\evil.example/steal is not on this site (http://evil.example): Try it calls this site's API only.",
    );
    const html = await page.goto(new URL('services/html/service.html', base).href);
    expect(html?.status()).toBe(200);
    expect(await page.locator('.description').textContent()).toContain(
      '<iframe srcdoc="<script>parent.alert(1)</script>"></iframe>',
    );
    // Should markup ever get through, the page's own policy (page-head's Content-Security-Policy) refuses to run it.
    const refused: string[] = [];
    page.on('console', (message) => refused.push(message.text()));
    await page.evaluate(() => {
      document.body.insertAdjacentHTML(
        'beforeend',
        '<img src="data:," onerror="window.__ran = 1" onload="window.__ran = 2"><a id="got-in" href="javascript:window.__ran = 3">x</a>',
      );
      document.getElementById('got-in')!.click();
    });
    await page.waitForTimeout(100);
    expect(await page.evaluate(() => (window as unknown as { __ran?: number }).__ran)).toBeUndefined();
    expect(refused.filter((text) => text.includes('Content Security Policy')).length).toBeGreaterThanOrEqual(2);
    await page.screenshot({ path: join(ARTIFACTS, 'hostile-docs.png'), fullPage: false });
    await page.close();
  });
});
