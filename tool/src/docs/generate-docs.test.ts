import { cp, lstat, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { FIXTURE_FILES, PROJECT_CONFIG, writeFiles } from './__tests__/fixture-project';
import { hashOf, MANIFEST_FILE } from './docs-manifest';
import { generateDocs } from './generate-docs';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rest-tool-docs-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const createProject = async (files: Record<string, string> = FIXTURE_FILES): Promise<string> =>
  writeFiles(await mkdtemp(join(root, 'project-')), files);
const read = (dir: string, path: string): Promise<string> => readFile(join(dir, 'docs', path), 'utf8');
const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('generateDocs', () => {
  it('writes an index listing every service and a page per service, with the copied files they link to', async () => {
    const dir = await createProject();
    const { written } = await generateDocs({ projectDir: dir });
    const files = await listFiles(join(dir, 'docs'));
    expect(files).toEqual([
      '.rest-tool-docs.json',
      'assets/docs.css',
      'assets/docs.js',
      'index.html',
      'service-list.js',
      'services/monitoring/isAlive/service.html',
      'services/monitoring/isAlive/service.yml',
      'services/odd names/ünï & <co>/body #1 & more.json',
      'services/odd names/ünï & <co>/service.html',
      'services/odd names/ünï & <co>/service.yml',
      'services/orders/getCollection-responseBody.json',
      'services/orders/order-schema.json',
      'services/orders/order/getResource-responseBody.json',
      'services/orders/order/putResource-requestBody.json',
      'services/orders/order/putResource-responseBody.json',
      'services/orders/order/service.html',
      'services/orders/order/service.yml',
      'services/orders/postCollection-requestBody.json',
      'services/orders/postCollection-responseBody.json',
      'services/orders/service.html',
      'services/orders/service.yml',
    ]);
    expect(written).toBe(files.length - 1);
    const index = await read(dir, 'index.html');
    expect(index).toContain('<h1>Shop &amp; &lt;Co&gt; &quot;API&quot; <span class="version">v1.2.3</span></h1>');
    expect(index).toContain('<a href="services/monitoring/isAlive/service.html">Monitoring that server is alive</a>');
    expect(index).toContain('href="services/odd%20names/%C3%BCn%C3%AF%20%26%20%3Cco%3E/service.html"');
    expect(index).toContain('<a class="method put" href="services/orders/order/service.html#PUT">PUT</a>');
    expect(index).toContain('<td class="url"><code>/rest/<wbr>orders/<wbr>{id}</code></td>');
    expect(index).toContain('<td class="service-style">RESOURCE</td>');
  });

  it('summarises a service in the index by the first sentence of its description, never cut inside one', async () => {
    const alive = FIXTURE_FILES['services/monitoring/isAlive/service.yml'];
    const dir = await createProject({
      ...FIXTURE_FILES,
      'services/monitoring/isAlive/service.yml': alive.replace(
        '  Answers `true` while the server runs.\n',
        '  Tells whether the server is up. Load balancers and monitoring tools call it; it answers `true` while the\n' +
          '  server runs, with the API version in a header.\n',
      ),
    });
    await generateDocs({ projectDir: dir });
    const index = await read(dir, 'index.html');
    expect(index).toContain('<div class="summary">Tells whether the server is up.</div>');
    expect(index).toContain('<div class="summary">The orders</div>');
  });

  it('renders Markdown, shows raw HTML as text, and drops script links', async () => {
    const dir = await createProject();
    await generateDocs({ projectDir: dir });
    const orders = await read(dir, 'services/orders/service.html');
    expect(orders).toContain('<h1>The orders</h1>');
    expect(orders).toContain('<strong>newest first</strong>');
    expect(orders).toContain('<a href="../orders/order/service.html">the order</a>');
    expect(orders).toContain('&lt;script&gt;document.title = &#39;pwned&#39;&lt;/script&gt;');
    expect(orders).toContain('<p>Not a trap, nor another.</p>');
    expect(orders).not.toMatch(/(href|src)="javascript:/);
    expect(orders).toContain('List the <em>orders</em>');
    const odd = await read(dir, 'services/odd names/ünï & <co>/service.html');
    // The page's own scripts aside, nothing from the descriptor became a tag.
    expect(odd.replace(/<script src="[^"<>]*" defer><\/script>/g, '')).not.toMatch(/<img|<\/?script/);
    expect(odd).toContain('<h1>Ünïcode &quot;quotes&quot; &amp; &lt;tags&gt; &#39;apos&#39; `ticks` {{mustache}}</h1>');
  });

  it('documents methods with parameters, headers, cookies, responses with status codes and test cases', async () => {
    const dir = await createProject();
    await generateDocs({ projectDir: dir });
    const order = await read(dir, 'services/orders/order/service.html');
    expect(order).toContain('<section class="method-block" id="GET">');
    // A narrow column may break the URL after a slash, nowhere else.
    expect(order).toContain('<code>/rest/<wbr>orders/<wbr>{id}</code>');
    expect(order).toContain('<td><code>id</code></td><td>URL</td><td>integer</td><td>yes</td><td><code>42</code></td>');
    expect(order).toContain('<code>session</code></th><td><code>abc</code>');
    expect(order).toContain('<span class="status s2xx">200</span> OK');
    expect(order).toContain('<span class="status s2xx">204</span> No content');
    expect(order).toContain('<a class="file" href="getResource-responseBody.json">getResource-responseBody.json</a>');
    expect(order).toContain('no-such-file.json (file not found)');
    expect(order).toContain('<h4>Update Order</h4>');
    expect(order).toContain('<code>testPutMethod.mustache</code>');
    expect(order).toContain('Answers <em>404</em> when there is no such order.');
    const orders = await read(dir, 'services/orders/service.html');
    expect(orders).toContain('<a class="file" href="order-schema.json">order-schema.json</a>');
    const odd = await read(dir, 'services/odd names/ünï & <co>/service.html');
    expect(odd).toContain('href="body%20%231%20%26%20more.json"');
  });

  it('names the descriptor, line and file of each mock body that does not exist, and still writes the pages', async () => {
    const dir = await createProject();
    const { written, warnings } = await generateDocs({ projectDir: dir });
    expect(written).toBeGreaterThan(0);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^services\/orders\/order\/service\.yml:\d+: \/methods\/DELETE\/responses\/0\/mockBody: the file no-such-file\.json does not exist$/,
      ),
    ]);
  });

  it('warns of nothing when every file the descriptors name is there', async () => {
    const dir = await createProject({
      ...FIXTURE_FILES,
      'services/orders/order/no-such-file.json': '{}',
    });
    expect((await generateDocs({ projectDir: dir })).warnings).toEqual([]);
  });

  it('shows example bodies and schemas on the page, pretty-printed and escaped, long ones folded, huge ones cut', async () => {
    const orders = FIXTURE_FILES['services/orders/service.yml'];
    const dir = await createProject({
      ...FIXTURE_FILES,
      'services/orders/service.yml': orders
        .replace(
          '      mockBody: postCollection-requestBody.json\n',
          '      mockBody: postCollection-requestBody.json\n      validationSchema: new-order-schema.json\n',
        )
        .replace('        mockBody: getCollection-responseBody.json\n', '        mockBody: list.json\n')
        .replace(
          '        description: The body says *why*.\n',
          '        description: The body says *why*.\n        mockBody: logo.png\n',
        ),
      'services/orders/new-order-schema.json': '{"type":"object","required":["item"]}',
      'services/orders/list.json': JSON.stringify(Array.from({ length: 3000 }, (_, id) => ({ id, status: 'open' }))),
      'services/orders/logo.png': '\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR',
      'services/orders/postCollection-responseBody.json':
        '{"id":1,"note":"</script><script>alert(1)</script><img src=x onerror=alert(2)>"}\n',
    });
    await generateDocs({ projectDir: dir });
    const page = await read(dir, 'services/orders/service.html');
    // The request's body and its schema, each pretty-printed below its link.
    expect(page).toContain(
      '<dt>Body</dt><dd><a class="file" href="postCollection-requestBody.json">postCollection-requestBody.json</a>' +
        '<pre class="example json"><code>{\n  <span class="j-key">&quot;item&quot;</span>: ' +
        '<span class="j-string">&quot;book&quot;</span>\n}</code></pre>',
    );
    expect(page).toContain(
      '<dt>Schema</dt><dd><a class="file" href="new-order-schema.json">new-order-schema.json</a><pre class="example json">',
    );
    expect(page).toContain('<a class="file" href="order-schema.json">order-schema.json</a><pre class="example json">');
    // Escaped: the mock body's tags are text.
    expect(page).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(page.replace(/<script src="[^"<>]*" defer><\/script>/g, '')).not.toMatch(/<img|<\/?script/);
    // 3,000 items: folded, cut at 150 lines, linked whole.
    expect(page).toContain('<details class="example"><summary>Show the first 150 lines of JSON (');
    expect(page).toMatch(/Only the start is shown: <a href="list\.json">the whole file<\/a> \(\d+\.\d KiB\)\./);
    expect(page).toContain(
      '<a class="file" href="logo.png">logo.png</a> <span class="none">(not text: not shown)</span>',
    );
    // Test cases link their files, not repeating them.
    expect(page).toContain(
      '<dt>Request body</dt><dd><a class="file" href="postCollection-requestBody.json">postCollection-requestBody.json</a>\n</dd>',
    );
  });

  it('puts a Try-it form on every method: path and query parameters, headers, and the body for POST and PUT', async () => {
    const dir = await createProject();
    await generateDocs({ projectDir: dir });
    const order = await read(dir, 'services/orders/order/service.html');
    expect(order.match(/<form class="try-it-form"/g)).toHaveLength(3);
    expect(order).toContain(
      '<form class="try-it-form" data-method="GET" data-prefix="/rest" data-uri-template="/orders/{id}" hidden novalidate>',
    );
    expect(order).toContain('<input type="text" data-path-parameter="id" value="42" placeholder="integer" required');
    // The form is hidden until docs.js finds the page served over http(s); the note says why until then.
    expect(order).toContain('<p class="try-it-off">Try it calls the API from this page');
    const put = order.slice(order.indexOf('data-method="PUT"'));
    expect(put).toContain(
      '<textarea data-headers rows="2" spellcheck="false" placeholder="Accept: application/json">Content-Type: application/json</textarea>',
    );
    expect(put).toContain(
      '<textarea data-body rows="5" spellcheck="false">{\n  &quot;id&quot;: 1,\n  &quot;item&quot;: &quot;pen&quot;\n}</textarea>',
    );
    const orders = await read(dir, 'services/orders/service.html');
    expect(orders).toContain(
      '<input type="text" data-query-parameter="status" value="open" placeholder="string" spellcheck="false"',
    );
    expect(orders).not.toMatch(/data-method="GET"[^]*?<textarea data-body[^]*?data-method="POST"/);
    const odd = await read(dir, 'services/odd names/ünï & <co>/service.html');
    expect(odd).toContain('data-uri-template="/odd/{name}/run"');
    expect(odd).toContain('data-path-parameter="name" value="a b/c?d"');
  });

  it('lists every service for the sidebar in one script, and marks each page with its own path', async () => {
    const dir = await createProject();
    await generateDocs({ projectDir: dir });
    const script = await read(dir, 'service-list.js');
    const sandbox: { window: { restToolServices?: unknown } } = { window: {} };
    new Function('window', script)(sandbox.window);
    expect(sandbox.window.restToolServices).toEqual([
      {
        name: 'Monitoring that server is alive',
        href: 'services/monitoring/isAlive/service.html',
        url: '/rest/monitoring/isAlive',
        summary: 'Answers true while the server runs.',
        methods: ['GET'],
      },
      {
        name: 'Orders',
        href: 'services/orders/service.html',
        url: '/rest/orders',
        summary: 'The orders',
        methods: ['GET', 'POST'],
      },
      {
        name: 'Order',
        href: 'services/orders/order/service.html',
        url: '/rest/orders/{id}',
        summary: 'One order, by its id.',
        methods: ['GET', 'PUT', 'DELETE'],
      },
      {
        name: 'Ünïcode "quotes" & <tags> \'apos\' `ticks` {{mustache}}',
        href: 'services/odd%20names/%C3%BCn%C3%AF%20%26%20%3Cco%3E/service.html',
        url: '/rest/odd/{name}/run',
        summary: 'Line one',
        methods: ['POST'],
      },
    ]);
    expect(await read(dir, 'index.html')).toContain(
      '<nav class="sidebar" aria-label="Services" data-root="" data-page="index.html">',
    );
    expect(await read(dir, 'services/orders/order/service.html')).toContain(
      '<nav class="sidebar" aria-label="Services" data-root="../../../" data-page="services/orders/order/service.html">',
    );
  });

  it('keeps its scripts in the manifest like the stylesheet, and a new service rewrites the list, not every page', async () => {
    const dir = await createProject({
      ...FIXTURE_FILES,
      'config.yml': PROJECT_CONFIG.replace('  - /orders/order\n', ''),
    });
    await generateDocs({ projectDir: dir });
    const manifest = JSON.parse(await read(dir, MANIFEST_FILE)) as { files: Record<string, string> };
    expect(Object.keys(manifest.files)).toEqual(
      expect.arrayContaining(['assets/docs.css', 'assets/docs.js', 'service-list.js']),
    );
    expect(manifest.files['assets/docs.js']).toBe(hashOf(await readFile(join(dir, 'docs', 'assets', 'docs.js'))));

    await writeFile(join(dir, 'config.yml'), PROJECT_CONFIG);
    const lines: string[] = [];
    await generateDocs({ projectDir: dir, verbose: (line) => lines.push(line) });
    // Pages are written in parallel: the order they finish in is not the point.
    expect(lines.filter((line) => line.startsWith('wrote ')).sort()).toEqual([
      'wrote index.html',
      'wrote services/orders/order/service.html',
    ]);
    expect(await read(dir, 'service-list.js')).toContain('"href":"services/orders/order/service.html"');

    await writeFile(join(dir, 'docs', 'assets', 'docs.js'), '// mine now\n');
    const err = await generateDocs({ projectDir: dir }).catch((e: unknown) => e);
    expect((err as RestbusError).message).toMatch(/^docs\/assets\/docs\.js: changed since rest-tool docs wrote it/m);
  });

  it('rewrites only what changed on an update', async () => {
    const dir = await createProject();
    await generateDocs({ projectDir: dir });
    expect(await generateDocs({ projectDir: dir })).toMatchObject({ written: 0 });
    const order = join(dir, 'services', 'orders', 'order', 'service.yml');
    await writeFile(
      order,
      (await readFile(order, 'utf8')).replace('summary: Delete an order', 'summary: Remove an order'),
    );
    const lines: string[] = [];
    // The page and the copied descriptor.
    expect(await generateDocs({ projectDir: dir, verbose: (line) => lines.push(line) })).toMatchObject({ written: 2 });
    expect(lines).toContain('wrote services/orders/order/service.html');
    expect(await read(dir, 'services/orders/order/service.html')).toContain('Remove an order');
  });

  it('replaces only the files it generated, and removes the pages of a service that left config.yml', async () => {
    const dir = await createProject();
    await generateDocs({ projectDir: dir });
    await writeFile(join(dir, 'docs', 'notes.md'), 'mine');
    await writeFile(join(dir, 'docs', 'services', 'orders', 'mine.txt'), 'mine too');
    await writeFile(join(dir, 'config.yml'), PROJECT_CONFIG.replace('  - /orders/order\n', ''));
    const lines: string[] = [];
    await generateDocs({ projectDir: dir, verbose: (line) => lines.push(line) });
    expect(await read(dir, 'notes.md')).toBe('mine');
    expect(await read(dir, 'services/orders/mine.txt')).toBe('mine too');
    expect(await exists(join(dir, 'docs', 'services', 'orders', 'order'))).toBe(false);
    expect(lines).toContain('removed services/orders/order/service.html');
    expect(await read(dir, 'index.html')).not.toContain('orders/order');
  });

  it('keeps a stale generated file that was changed since', async () => {
    const dir = await createProject();
    await generateDocs({ projectDir: dir });
    await writeFile(join(dir, 'docs', 'services', 'orders', 'order', 'service.html'), 'edited by hand');
    await writeFile(join(dir, 'config.yml'), PROJECT_CONFIG.replace('  - /orders/order\n', ''));
    const lines: string[] = [];
    await generateDocs({ projectDir: dir, verbose: (line) => lines.push(line) });
    expect(await read(dir, 'services/orders/order/service.html')).toBe('edited by hand');
    expect(lines).toContain('kept services/orders/order/service.html: changed since it was generated');
    expect(await exists(join(dir, 'docs', 'services', 'orders', 'order', 'service.yml'))).toBe(false);
  });

  it('with force, replaces hand-written and edited files and links where it writes its own, never a folder', async () => {
    const dir = await createProject({ ...FIXTURE_FILES, 'docs/index.html': 'hand-written' });
    await symlink(join('..', '..', 'config.yml'), join(dir, 'docs', 'assets.css'));
    await generateDocs({ projectDir: dir, force: true });
    expect(await read(dir, 'index.html')).toContain('<table class="services">');
    await writeFile(join(dir, 'docs', 'services', 'orders', 'service.html'), 'edited');
    await rm(join(dir, 'docs', 'assets', 'docs.css'));
    await symlink(join('..', '..', 'config.yml'), join(dir, 'docs', 'assets', 'docs.css'));
    const err = await generateDocs({ projectDir: dir }).catch((e: unknown) => e);
    expect((err as RestbusError).message).toMatch(/^docs\/assets\/docs\.css: a symbolic link where rest-tool docs/m);
    expect((err as RestbusError).message).toMatch(/^docs\/services\/orders\/service\.html: changed since/m);
    await generateDocs({ projectDir: dir, force: true });
    expect(await read(dir, 'services/orders/service.html')).toContain('<h1>The orders</h1>');
    expect((await lstat(join(dir, 'docs', 'assets', 'docs.css'))).isFile()).toBe(true);
    expect(await readFile(join(dir, 'config.yml'), 'utf8')).toBe(PROJECT_CONFIG);

    await rm(join(dir, 'docs', 'index.html'));
    await writeFiles(dir, { 'docs/index.html/mine.txt': 'a folder' });
    const folder = await generateDocs({ projectDir: dir, force: true }).catch((e: unknown) => e);
    expect((folder as RestbusError).message).toMatch(
      /^docs\/index\.html: a folder where rest-tool docs writes a file/m,
    );
  });

  it('takes over the files an update killed midway wrote, though the project changed since', async () => {
    const dir = await createProject();
    await generateDocs({ projectDir: dir });
    // The killed update (to v2): its pages, as a finished one in a copy of the project writes them.
    const copy = await mkdtemp(join(root, 'copy-'));
    await cp(dir, copy, { recursive: true });
    await writeFile(join(copy, 'config.yml'), PROJECT_CONFIG.replace('v1.2.3', 'v2.0.0'));
    await generateDocs({ projectDir: copy });
    const pending = await readFile(join(copy, 'docs', 'index.html'));
    const manifestFile = join(dir, 'docs', MANIFEST_FILE);
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, unknown>;
    await writeFile(manifestFile, JSON.stringify({ ...manifest, pending: { 'index.html': hashOf(pending) } }));
    await writeFile(join(dir, 'docs', 'index.html'), pending);

    await writeFile(join(dir, 'config.yml'), PROJECT_CONFIG.replace('v1.2.3', 'v3.0.0'));
    await generateDocs({ projectDir: dir });
    expect(await read(dir, 'index.html')).toContain('v3.0.0');
    const after = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, unknown>;
    expect(after).not.toHaveProperty('pending');
  });

  it("uses the project's templates and assets file by file, and the tool's for the rest", async () => {
    const dir = await createProject({
      ...FIXTURE_FILES,
      'templates/docs/page-foot.mustache': '<footer>custom {{projectName}}</footer></main></body></html>\n',
      'templates/docs/assets/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
      'templates/docs/index.html': 'an upstream rest-tool template, not ours\n',
    });
    await generateDocs({ projectDir: dir });
    const index = await read(dir, 'index.html');
    expect(index).toContain('<footer>custom Shop &amp; &lt;Co&gt; &quot;API&quot;</footer>');
    expect(index).toContain('<table class="services">');
    expect(await read(dir, 'assets/logo.svg')).toContain('<svg');
    expect(await read(dir, 'assets/docs.css')).toContain('rest-tool docs');
  });

  it("renders a rest-tool 0.5 project's own restapi.html and index.html, partials by file name, and copies its folders", async () => {
    const dir = await createProject({
      ...FIXTURE_FILES,
      'templates/docs/index.html':
        '<h1>{{projectName}}</h1>{{#serviceDocNames}}<a href="{{docFileName}}">{{name}}</a>{{/serviceDocNames}}\n',
      'templates/docs/restapi.html': '<h2>{{name}}</h2>\n{{> body.html}}\n',
      'templates/docs/body.html': '{{#methodList}}<b>{{methodName}}</b> {{relPath}}{{contentPath}}{{/methodList}}\n',
      'templates/docs/stylesheets/screen.css': 'body {}\n',
    });
    await generateDocs({ projectDir: dir });
    expect(await read(dir, 'index.html')).toContain('<a href="services/orders/order/service.html">');
    expect(await read(dir, 'services/orders/service.html')).toBe(
      '<h2>Orders</h2>\n<b>GET</b> ../../services/orders<b>POST</b> ../../services/orders\n',
    );
    expect(await read(dir, 'stylesheets/screen.css')).toBe('body {}\n');
    expect(await exists(join(dir, 'docs', 'assets'))).toBe(false);
  });

  it('writes only the service pages for the oldest layout, whose templates/docs has restapi.html but no index.html', async () => {
    const dir = await createProject({ ...FIXTURE_FILES, 'templates/docs/restapi.html': '<h2>{{name}}</h2>\n' });
    await generateDocs({ projectDir: dir });
    expect(await read(dir, 'services/orders/service.html')).toBe('<h2>Orders</h2>\n');
    expect(await exists(join(dir, 'docs', 'index.html'))).toBe(false);
  });

  it('refuses Handlebars blocks in a rest-tool 0.5 template, naming each by file and line, writing nothing', async () => {
    const dir = await createProject({
      ...FIXTURE_FILES,
      'templates/docs/index.html': '{{projectName}}\n',
      'templates/docs/restapi.html': '<h2>{{name}}</h2>\n{{#if style}}{{style}}{{else}}-{{/if}}\n',
    });
    const err = await generateDocs({ projectDir: dir }).catch((e: unknown) => e);
    expect((err as RestbusError).code).toBe('PROJECT_INVALID');
    expect((err as RestbusError).message.split('\n')).toEqual([
      expect.stringMatching(
        /^templates\/docs\/restapi\.html:2: \{\{#if style\}\} is Handlebars; a project's templates/,
      ),
      expect.stringMatching(/^templates\/docs\/restapi\.html:2: \{\{else\}\} is Handlebars/),
      expect.stringMatching(/^templates\/docs\/restapi\.html:2: \{\{\/if\}\} is Handlebars/),
    ]);
    expect(await exists(join(dir, 'docs'))).toBe(false);
  });

  it("refuses a rest-tool 0.5 template's missing partial, by file name, before writing anything", async () => {
    const dir = await createProject({
      ...FIXTURE_FILES,
      'templates/docs/index.html': '{{projectName}}\n',
      'templates/docs/restapi.html': '{{> method.html}}\n',
    });
    const err = await generateDocs({ projectDir: dir }).catch((e: unknown) => e);
    expect((err as RestbusError).code).toBe('PROJECT_INVALID');
    expect((err as RestbusError).message).toMatch(/^templates\/docs: no method\.html \(used by .*restapi\.html\)/);
    expect(await exists(join(dir, 'docs'))).toBe(false);
  });

  it('refuses an invalid project with the loader’s precise messages and writes nothing', async () => {
    const orders = FIXTURE_FILES['services/orders/service.yml'];
    const line = orders.split('\n').indexOf('style: COLLECTION') + 1;
    const dir = await createProject({
      ...FIXTURE_FILES,
      'services/orders/service.yml': orders.replace('style: COLLECTION', 'style: LIST'),
    });
    const err = await generateDocs({ projectDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RestbusError);
    expect((err as RestbusError).code).toBe('PROJECT_INVALID');
    expect((err as RestbusError).message).toBe(
      `services/orders/service.yml:${line}: /style: must be one of "OPERATION", "COLLECTION", "RESOURCE"`,
    );
    expect(await exists(join(dir, 'docs'))).toBe(false);
  });

  it('refuses a template with a mustache syntax error before writing anything', async () => {
    const dir = await createProject({ ...FIXTURE_FILES, 'templates/docs/method.mustache': '{{#open}} never closed\n' });
    const err = await generateDocs({ projectDir: dir }).catch((e: unknown) => e);
    expect((err as RestbusError).code).toBe('PROJECT_INVALID');
    expect((err as RestbusError).message).toMatch(/templates\/docs\/method\.mustache: Unclosed section "open"/);
    expect(await exists(join(dir, 'docs'))).toBe(false);
  });

  it('reads the config of a project in another folder, and refuses a config not named config.yml', async () => {
    const dir = await createProject();
    const elsewhere = await mkdtemp(join(root, 'cwd-'));
    await generateDocs({ projectDir: elsewhere, configFile: join('..', dir.slice(root.length + 1), 'config.yml') });
    expect(await read(dir, 'index.html')).toContain('v1.2.3');
    const err = await generateDocs({ projectDir: dir, configFile: 'other.yml' }).catch((e: unknown) => e);
    expect((err as RestbusError).code).toBe('PROJECT_INVALID');
    expect((err as RestbusError).message).toMatch(/^other\.yml: .*must be named config\.yml/);
  });
});
