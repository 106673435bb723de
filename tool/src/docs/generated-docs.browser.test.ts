import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { FIXTURE_FILES, writeFiles } from './__tests__/fixture-project';
import { MANIFEST_FILE } from './docs-manifest';
import { generateDocs } from './generate-docs';

// The generated docs opened from disk in Debian's Chromium: every page renders, every link resolves, nothing is
// fetched from the network, nothing logs an error. A missing browser fails the test; it is never skipped.
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = resolve(__dirname, '..', '..', 'test-artifacts');

let root: string;
let browser: Browser;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)`);
  }
  root = await mkdtemp(join(tmpdir(), 'rest-tool-browser-'));
  browser = await chromium.launch({ executablePath: CHROMIUM });
}, 60_000);
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
          const other = await browser.newPage();
          await other.goto(target.href.split('#')[0]);
          const id = decodeURIComponent(target.hash.slice(1));
          expect({ page: path, href: link.raw, anchor: await other.locator(`[id="${id}"]`).count() }).toMatchObject({
            anchor: 1,
          });
          await other.close();
        }
      }
    }
    expect(problems).toEqual([]);
    expect(requested.filter((url) => !url.startsWith('file://') && !url.startsWith('data:'))).toEqual([]);
    expect(await page.title()).toBeTruthy();

    await page.goto(pathToFileURL(join(docsDir, 'index.html')).href);
    expect(await page.locator('h1').textContent()).toBe('Shop & <Co> "API" v1.2.3');
    expect(await page.locator('table.services tbody tr').count()).toBe(4);
    expect(await page.title()).toBe('Shop & <Co> "API" v1.2.3');

    await page.goto(pathToFileURL(join(docsDir, 'services', 'orders', 'order', 'service.html')).href);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.screenshot({ path: join(ARTIFACTS, 'service-page.png'), fullPage: true });
    await page.close();
  }, 60_000);

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
  }, 60_000);
});
