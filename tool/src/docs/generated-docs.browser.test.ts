import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { createLogger } from '@restbus/infra';
import { startMockServer, type MockServer } from '@restbus/mock-server';
import { FIXTURE_FILES, writeFiles } from './__tests__/fixture-project';
import { MANIFEST_FILE } from './docs-manifest';
import { generateDocs } from './generate-docs';
import { ARTIFACTS, launchChromium } from './__tests__/launch-chromium';

// The generated docs opened from disk in Debian's Chromium: every page renders, every link resolves, nothing is
// fetched from the network, nothing logs an error. A missing browser fails the test; it is never skipped.

let root: string;
let browser: Browser;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rest-tool-browser-'));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const isFile = (path: string): Promise<boolean> =>
  stat(path).then(
    (info) => info.isFile(),
    () => false,
  );

describe('generated docs in a headless Chromium', () => {
  it('render from file:// with every link resolving, no network and no console errors', async () => {
    const dir = await writeFiles(await mkdtemp(join(root, 'project-')), FIXTURE_FILES);
    await generateDocs({ projectDir: dir });
    const docsDir = join(dir, 'docs');
    const manifest = JSON.parse(await readFile(join(docsDir, MANIFEST_FILE), 'utf8')) as { files: object };
    const pages = Object.keys(manifest.files).filter((path) => path.endsWith('.html'));
    expect(pages).toHaveLength(5);

    const page = await browser.newPage();
    const problems: string[] = [];
    const requested: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
    page.on('request', (request) => requested.push(request.url()));

    // Every page's sidebar links every service: each page an anchor points into is opened once, in one more tab,
    // and its ids counted (a new tab per anchor started a renderer each: most of this test's CPU time).
    const idsOfPage = new Map<string, Map<string, number>>();
    const other = await browser.newPage();
    const countIds = async (pageUrl: string): Promise<Map<string, number>> => {
      let ids = idsOfPage.get(pageUrl);
      if (!ids) {
        await other.goto(pageUrl);
        const listed = await other.evaluate(() => [...document.querySelectorAll('[id]')].map((element) => element.id));
        ids = new Map<string, number>();
        for (const id of listed) ids.set(id, (ids.get(id) ?? 0) + 1);
        idsOfPage.set(pageUrl, ids);
      }
      return ids;
    };
    for (const path of pages) {
      const url = pathToFileURL(join(docsDir, path)).href;
      const response = await page.goto(url);
      expect(response?.ok()).toBe(true);
      expect(await page.locator('h1').first().textContent()).toBeTruthy();
      // The stylesheet applied: the page is not unstyled HTML.
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('main')!).maxWidth)).not.toBe('none');
      const links = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLAnchorElement>('a[href]')].map((a) => ({
          raw: a.getAttribute('href')!,
          url: a.href,
        })),
      );
      for (const link of links) {
        expect({ page: path, href: link.raw, absolute: /^(\/|[a-z]+:)/i.test(link.raw) }).toMatchObject({
          absolute: false,
        });
        const target = new URL(link.url);
        expect({ page: path, href: link.raw, exists: await isFile(fileURLToPath(target)) }).toMatchObject({
          exists: true,
        });
        if (target.hash) {
          const ids = await countIds(target.href.split('#')[0]);
          const id = decodeURIComponent(target.hash.slice(1));
          expect({ page: path, href: link.raw, anchor: ids.get(id) ?? 0 }).toMatchObject({ anchor: 1 });
        }
      }
    }
    await other.close();
    expect(problems).toEqual([]);
    expect(requested.filter((url) => !url.startsWith('file://') && !url.startsWith('data:'))).toEqual([]);
    expect(await page.title()).toBeTruthy();

    await page.goto(pathToFileURL(join(docsDir, 'index.html')).href);
    expect(await page.locator('h1').textContent()).toBe('Shop & <Co> "API" v1.2.3');
    expect(await page.locator('table.services tbody tr').count()).toBe(4);
    expect(await page.title()).toBe('Shop & <Co> "API" v1.2.3');

    await page.goto(pathToFileURL(join(docsDir, 'services', 'orders', 'order', 'service.html')).href);
    // From a file there is no API to call: no Try-it form shows, only the note saying what it needs.
    expect(await page.locator('form.try-it-form').count()).toBe(3);
    await page.locator('details.try-it summary').first().click();
    expect(await page.locator('form.try-it-form:visible').count()).toBe(0);
    expect(await page.locator('.try-it-off').first().textContent()).toContain(
      'Opened from a file, it cannot call the API.',
    );
    expect(await page.locator('.try-it-off').first().isVisible()).toBe(true);
    // The sidebar works from a file all the same.
    expect(await page.locator('.service-list a[aria-current="page"] .service-name').textContent()).toBe('Order');
    await mkdir(ARTIFACTS, { recursive: true });
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.screenshot({ path: join(ARTIFACTS, 'service-page.png'), fullPage: true });
    await page.close();
  });

  it('lay out the index without cutting a word: styles on one line, URLs broken only after a slash', async () => {
    const odd = 'services/odd names/ünï & <co>/service.yml';
    const dir = await writeFiles(await mkdtemp(join(root, 'project-')), {
      ...FIXTURE_FILES,
      // Long enough to need several lines in a narrow URL column.
      [odd]: FIXTURE_FILES[odd].replace(
        'uriTemplate: /odd/{name}/run',
        'uriTemplate: /odd/{name}/run/every/night/without/fail/until/someone/stops/it',
      ),
    });
    await generateDocs({ projectDir: dir });
    const page = await browser.newPage();
    await mkdir(ARTIFACTS, { recursive: true });
    for (const width of [360, 700, 1200]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(pathToFileURL(join(dir, 'docs', 'index.html')).href);
      const layout = await page.evaluate(() => {
        // The characters after which a line ends inside an element, found from each character's position.
        const charactersBeforeBreaks = (element: Element): string[] => {
          const found: string[] = [];
          const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
          let previous: { top: number; character: string } | undefined;
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.textContent!.length; i++) {
              const range = document.createRange();
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              const { top, height } = range.getBoundingClientRect();
              if (previous && top > previous.top + height / 2) found.push(previous.character);
              previous = { top, character: node.textContent![i] };
            }
          }
          return found;
        };
        return {
          overflow: document.documentElement.scrollWidth - window.innerWidth,
          rows: [...document.querySelectorAll('table.services tbody tr')].map((row) => ({
            url: row.querySelector('td.url')!.textContent,
            urlBreaksAfter: charactersBeforeBreaks(row.querySelector('td.url')!),
            style: row.querySelector('td.service-style')!.textContent,
            styleBreaks: charactersBeforeBreaks(row.querySelector('td.service-style')!).length,
          })),
        };
      });
      await page.screenshot({ path: join(ARTIFACTS, `index-${width}.png`), fullPage: true });
      expect({ width, overflow: layout.overflow }).toEqual({ width, overflow: 0 });
      expect(layout.rows).toHaveLength(4);
      for (const row of layout.rows) {
        expect({ width, style: row.style, breaks: row.styleBreaks }).toEqual({ width, style: row.style, breaks: 0 });
        expect({ width, url: row.url, breaksAfter: row.urlBreaksAfter }).toEqual({
          width,
          url: row.url,
          breaksAfter: row.urlBreaksAfter.map(() => '/'),
        });
      }
      if (width === 360) {
        // The long URL does not fit one line there: the check above saw it break, after slashes only.
        expect(layout.rows.find((row) => row.url!.startsWith('/rest/odd'))!.urlBreaksAfter.length).toBeGreaterThan(0);
      }
    }
    await page.close();
  });
});

// A service whose mock body tries to get out of the page: as a preview, in the sidebar and in a Try-it answer.
const EVIL_BODY = '<img src=x onerror="window.__pwned = 1"></script><script>window.__pwned = 2</script>\n';
const EVIL = `name: "Evil </script><img src=x onerror=window.__pwned=3>"
description: A body that is HTML. Not run.
style: OPERATION
uriTemplate: /evil
methods:
  GET:
    summary: Answer HTML
    responses:
      - name: OK
        statusCode: 200
        reason: fine
        headers:
          - { field: Content-Type, content: text/html }
        mockBody: evil.html
`;

describe('generated docs served by the mock server, in a headless Chromium', () => {
  let server: MockServer;
  let base: string;
  beforeAll(async () => {
    const dir = await writeFiles(await mkdtemp(join(root, 'served-')), {
      ...FIXTURE_FILES,
      // One in-memory collection for /orders and /orders/{id}: what Try-it posts, Try-it gets back.
      'services/orders/service.yml': FIXTURE_FILES['services/orders/service.yml'].replace(
        'style: COLLECTION\n',
        'style: COLLECTION\nstateful: true\n',
      ),
      'config.yml': FIXTURE_FILES['config.yml'].replace(
        '  - /odd names/ünï & <co>\n',
        '  - /odd names/ünï & <co>\n  - /evil\n',
      ),
      'services/evil/service.yml': EVIL,
      'services/evil/evil.html': EVIL_BODY,
    });
    await generateDocs({ projectDir: dir });

    const logger = createLogger({ name: 'mock', level: 'silent' });
    server = await startMockServer({ projectDir: dir, port: 0, host: '127.0.0.1', watch: false, logger });
    base = `${server.url}/docs/`;
  });
  afterAll(async () => {
    await server?.close();
  });

  /** What the pages opened by a test logged as errors and warnings, and threw. */
  let problems: string[] = [];
  beforeEach(() => {
    problems = [];
  });

  const openPage = async (path: string): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const response = await page.goto(new URL(path, base).href);
    expect(response?.status()).toBe(200);
    return page;
  };
  const sidebarNames = (page: Page): Promise<string[]> =>
    page.locator('.service-list li:not([hidden]) .service-name').allTextContents();

  it('filter the sidebar as you type, by name, URL or summary, and reach a service from it by keyboard', async () => {
    const page = await openPage('index.html');
    const all = [
      'Monitoring that server is alive',
      'Orders',
      'Order',
      expect.stringContaining('Ünïcode'),
      expect.stringContaining('Evil'),
    ];
    expect(await sidebarNames(page)).toEqual(all);
    expect(await page.locator('.service-count').textContent()).toBe('5 services');
    const search = page.getByLabel('Find a service');
    // By name, case and accents aside; by URL; by summary; several words all match.
    await search.pressSequentially('unicode');
    expect(await sidebarNames(page)).toEqual([expect.stringContaining('Ünïcode')]);
    expect(await page.locator('.service-count').textContent()).toBe('1 of 5 services');
    await search.fill('');
    await search.pressSequentially('/rest/orders/');
    expect(await sidebarNames(page)).toEqual(['Order']);
    await search.fill('server runs');
    expect(await sidebarNames(page)).toEqual(['Monitoring that server is alive']);
    await search.fill('nothing like this');
    expect(await sidebarNames(page)).toEqual([]);
    expect(await page.locator('.service-count').textContent()).toBe('No service matches \u201cnothing like this\u201d');
    // Escape clears; "/" brings the focus back to the search box.
    await search.press('Escape');
    expect(await sidebarNames(page)).toEqual(all);
    await page.locator('h1').click();
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('service-search');
    // Down from the box to the first match, down again, Enter: that service's page, marked current.
    await page.keyboard.type('order');
    expect(await sidebarNames(page)).toEqual(['Orders', 'Order']);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('/rest/orders/{id}');
    await Promise.all([page.waitForURL('**/services/orders/order/service.html'), page.keyboard.press('Enter')]);
    expect(await page.locator('h1').textContent()).toBe('Order');
    expect(await page.locator('.service-list [aria-current="page"] .service-name').allTextContents()).toEqual([
      'Order',
    ]);
    // And by mouse, from a service page to another.
    await Promise.all([
      page.waitForURL('**/services/orders/service.html'),
      page.getByRole('link', { name: /^Orders/ }).click(),
    ]);
    // (The description's own heading is the second h1.)
    expect(await page.locator('h1').first().textContent()).toBe('Orders');
    await page.close();
    expect(problems).toEqual([]);
  });

  it('send a POST with its example body and a GET with a path parameter, showing status, headers and JSON', async () => {
    const page = await openPage('services/orders/service.html');
    const post = page.locator('section#POST details.try-it');
    await post.locator('summary').click();
    expect(await post.locator('.try-it-off').isVisible()).toBe(false);
    const form = post.locator('form');
    expect(await form.locator('textarea[data-body]').inputValue()).toBe('{\n  "item": "book"\n}');
    expect(await form.locator('textarea[data-headers]').inputValue()).toBe(
      'Content-Type: application/json\nX-Client: fixture',
    );
    await form.locator('textarea[data-body]').fill('{"item": "a <b>bold</b> pen"}');
    await form.getByRole('button', { name: 'Send' }).click();
    await form.locator('.try-it-status').waitFor();
    expect(await form.locator('.try-it-status .status').textContent()).toBe('201 Created');
    expect(await form.locator('.try-it-status').textContent()).toContain('POST /rest/orders');
    expect(await form.locator('.try-it-headers pre').textContent()).toMatch(/^location: \/rest\/orders\/2$/m);
    expect(await form.locator('pre.try-it-body').textContent()).toBe('{\n  "item": "a <b>bold</b> pen",\n  "id": 2\n}');

    // The new order, by its id in the path.
    await Promise.all([
      page.waitForURL('**/services/orders/order/service.html'),
      page
        .locator('.service-list')
        .getByRole('link', { name: /^Order\b/ })
        .click(),
    ]);
    const get = page.locator('section#GET details.try-it');
    await get.locator('summary').click();
    const getForm = get.locator('form');
    expect(await getForm.locator('input[data-path-parameter="id"]').inputValue()).toBe('42');
    await getForm.locator('input[data-path-parameter="id"]').fill('2');
    expect(await getForm.locator('[data-try-it-url]').textContent()).toBe('/rest/orders/2');
    await getForm.getByRole('button', { name: 'Send' }).click();
    await getForm.locator('.try-it-status').waitFor();
    expect(await getForm.locator('.try-it-status .status').textContent()).toBe('200 OK');
    expect(await getForm.locator('pre.try-it-body').textContent()).toBe(
      '{\n  "item": "a <b>bold</b> pen",\n  "id": 2\n}',
    );
    expect(await getForm.locator('pre.try-it-body b').count()).toBe(0);
    expect(await getForm.locator('pre.try-it-body .j-key').allTextContents()).toEqual(['"item"', '"id"']);
    await getForm.locator('.try-it-headers summary').click();

    // One that is not there: the 404 and its JSON, shown like any answer.
    const put = page.locator('section#PUT details.try-it');
    await put.locator('summary').click();
    await put.locator('input[data-path-parameter="id"]').fill('999');
    await put.getByRole('button', { name: 'Send' }).click();
    await put.locator('.try-it-status').waitFor();
    expect(await put.locator('.try-it-status .status').textContent()).toBe('404 Not Found');
    expect(await put.locator('pre.try-it-body').textContent()).toContain('"code": "NOT_FOUND"');

    await mkdir(ARTIFACTS, { recursive: true });
    await page.locator('section#GET').evaluate((section) => section.scrollIntoView());
    await page.evaluate(() => window.scrollBy(0, -8));
    await page.screenshot({ path: join(ARTIFACTS, 'docs-tryit.png') });
    await page.close();
    // Chromium logs the 404 it fetched; nothing else went wrong.
    expect(problems).toEqual([
      'console: Failed to load resource: the server responded with a status of 404 (Not Found)',
    ]);
  });

  it('show bodies as text wherever they appear: nothing in a mock body or a name runs', async () => {
    // A name that needs escaping in HTML and encoding in its URL: the sidebar still finds its page.
    const odd = await openPage('services/odd%20names/%C3%BCn%C3%AF%20%26%20%3Cco%3E/service.html');
    expect(await odd.locator('.service-list [aria-current="page"] .service-name').textContent()).toBe(
      'Ünïcode "quotes" & <tags> \'apos\' `ticks` {{mustache}}',
    );
    await odd.close();
    const page = await openPage('services/evil/service.html');
    expect(await page.locator('h1').textContent()).toBe('Evil </script><img src=x onerror=window.__pwned=3>');
    expect(await page.locator('pre.example').first().textContent()).toBe(EVIL_BODY.trimEnd());
    expect(await page.locator('.service-list [aria-current="page"] .service-name').textContent()).toBe(
      'Evil </script><img src=x onerror=window.__pwned=3>',
    );
    const tryIt = page.locator('details.try-it');
    await tryIt.locator('summary').click();
    await tryIt.getByRole('button', { name: 'Send' }).click();
    await tryIt.locator('.try-it-status').waitFor();
    // Not JSON: shown as it came, as text.
    expect(await tryIt.locator('pre.try-it-body').textContent()).toBe(EVIL_BODY);
    expect(await page.locator('main img, main script, .sidebar img').count()).toBe(0);
    await page.waitForTimeout(100);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.close();
    expect(problems).toEqual([]);
  });

  it('show what cannot be sent, and a server that does not answer, instead of throwing', async () => {
    const page = await openPage('services/orders/order/service.html');
    const get = page.locator('section#GET details.try-it');
    await get.locator('summary').click();
    await get.locator('input[data-path-parameter="id"]').fill('');
    expect(await get.locator('[data-try-it-url]').textContent()).toBe('/rest/orders/{id}');
    await get.getByRole('button', { name: 'Send' }).click();
    expect(await get.locator('.try-it-problem').textContent()).toBe('Fill in the path parameter id.');
    await get.locator('input[data-path-parameter="id"]').fill('1');
    await get.locator('textarea[data-headers]').fill('Accept: application/json\nnot a header line');
    await get.getByRole('button', { name: 'Send' }).click();
    expect(await get.locator('.try-it-problem').textContent()).toBe(
      'Header line 2 is not "Name: value": not a header line',
    );
    await get.locator('textarea[data-headers]').fill('Bad Name: x');
    await get.getByRole('button', { name: 'Send' }).click();
    expect(await get.locator('.try-it-problem').textContent()).toBe(
      'Header line 1: "Bad Name" cannot be sent as a header.',
    );

    await get.locator('textarea[data-headers]').fill('');
    await server.close();
    await get.getByRole('button', { name: 'Send' }).click();
    await get.locator('.try-it-problem').filter({ hasText: 'no answer' }).waitFor();
    expect(await get.locator('.try-it-problem').textContent()).toMatch(
      /^GET \/rest\/orders\/1 got no answer: .+\. Is the mock server still running\?$/,
    );
    expect(await get.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);
    // The failed fetch is logged by Chromium itself; nothing else.
    expect(problems.filter((problem) => !problem.includes('net::ERR_CONNECTION_REFUSED'))).toEqual([]);
    await page.close();
  });
});
