import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFile, spawn } from 'node:child_process';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { promisify } from 'node:util';
import { E2E_TAG, REPO_ROOT, type ComposeStack } from './compose-stack';

const execFileAsync = promisify(execFile);

/** A port nothing listens on right now (Docker publishes it a moment later). */
function freePort(): Promise<number> {
  return new Promise((done, failed) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
    server.on('error', failed);
  });
}

function rawGet(url: string): Promise<{ status: number; body: string }> {
  const { hostname, port, pathname } = new URL(url.replace('%2e%2e', 'DOTDOT'));
  return new Promise((done, failed) => {
    get({ host: hostname, port, path: pathname.replace('DOTDOT', '%2e%2e') }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    }).on('error', failed);
  });
}

/** The mock server and tool cases, run on the stack of stack.e2e.test.ts (one stack per run is enough). */
export function describeMockServerAndTool(stackOf: () => ComposeStack): void {
  describe('the mock server serving examples/crm-api', () => {
    const url = (path: string): string => `${stackOf().mockUrl}${path}`;

    it('answers isAlive with true, a newline, JSON and the API version', async () => {
      const response = await fetch(url('/rest/monitoring/isAlive'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('x-application-api-version')).toBe('v0.0.0');
      expect(await response.text()).toBe('true\n');
    });

    it("answers a stateful collection from its seed, and keeps each session's writes to itself", async () => {
      const added = await fetch(url('/rest/customers'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ data: 'Ada' }),
      });
      expect(added.status).toBe(201);
      expect(added.headers.get('location')).toBe('/rest/customers/3');
      const cookie = (added.headers.get('set-cookie') ?? '').split(';')[0];
      expect(cookie).toMatch(/^connect\.sid=/);
      const mine = await fetch(url('/rest/customers'), { headers: { cookie } });
      expect(await mine.json()).toEqual([
        { id: 1, data: 'some mock data' },
        { id: 2, data: 'some mock data' },
        { id: 3, data: 'Ada' },
      ]);
      expect((await fetch(url('/rest/customers/3'), { method: 'DELETE', headers: { cookie } })).status).toBe(204);
      expect((await fetch(url('/rest/customers/3'), { headers: { cookie } })).status).toBe(404);
    });

    it('answers the order search from its Handlebars template, with the filter the request sent', async () => {
      const response = await fetch(url('/rest/orders/search'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ filter: 'open "urgent"' }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { filter: string; orders: Array<{ customer: string }> };
      expect(body.filter).toBe('open "urgent"');
      expect(body.orders).toHaveLength(2);
      expect(body.orders[0].customer.length).toBeGreaterThan(0);
    });

    it('answers a collection from its mock file', async () => {
      const response = await fetch(url('/rest/customers'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual([
        { id: 1, data: 'some mock data' },
        { id: 2, data: 'some mock data' },
      ]);
    });

    it('answers an implementation service (the project echo in server/api.js)', async () => {
      const response = await fetch(url('/rest/customers/7/notes'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'call back' }),
      });
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual({ customer: '7', note: { text: 'call back' } });
    });

    it('answers a service without mock file or implementation with its descriptor', async () => {
      const response = await fetch(url('/rest/customers/7/notes'));
      expect(response.status).toBe(200);
      const body = await response.text();
      expect(JSON.parse(body)).toMatchObject({
        uriTemplate: '/customers/{id}/notes',
        contentPath: 'services/customers/notes',
      });
      expect(body).not.toContain('/project');
    });

    it('serves the service folders under /services', async () => {
      const response = await fetch(url('/services/customers/getCollection-responseBody.json'));
      expect(response.status).toBe(200);
      expect(await response.json()).toHaveLength(2);
      // Sent as is: fetch would resolve the encoded dots before sending. Dot segments are refused outright.
      const traversal = await rawGet(`${stackOf().mockUrl}/services/%2e%2e/server/config.yml`);
      expect(traversal.status).toBe(400);
      expect(traversal.body).not.toContain('environments');
    });

    it('serves the documentation rest-tool generated under /docs/', async () => {
      const response = await fetch(url('/docs/'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const page = await response.text();
      expect(page).toContain('crm-api');
      expect(page).toContain('services/customers/service.html');
    });

    it('serves docs whose Try-it form, in Chromium, calls the mock server and shows its answer', async () => {
      const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(url('/docs/services/customers/customer/service.html'));
        const form = page.locator('form.try-it-form[data-method="GET"]').first();
        await page.locator('details.try-it', { has: form }).locator('summary').click();
        await form.locator('[data-path-parameter="id"]').fill('2');
        await form.locator('button[type="submit"]').click();
        const result = form.locator('[data-try-it-result]');
        await result.locator('.try-it-status').waitFor({ timeout: 10_000 });
        expect(await result.locator('.try-it-status').textContent()).toContain('200');
        expect(JSON.parse((await result.locator('.try-it-body').textContent()) ?? '')).toEqual({
          id: 2,
          data: 'some mock data',
        });
        await page.screenshot({ path: join(REPO_ROOT, 'e2e', 'test-artifacts', 'docs-try-it.png'), fullPage: true });
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    });

    describe('a second mock server whose proxy rule forwards to the first container', () => {
      let proxy: StartedTestContainer | undefined;
      let project: string;

      beforeAll(async () => {
        project = mkdtempSync(join(tmpdir(), 'restbus-proxy-project-'));
        mkdirSync(join(project, 'server'));
        mkdirSync(join(project, 'services'));
        writeFileSync(
          join(project, 'server/config.yml'),
          'useEnvironment: devProxy\nenvironments:\n  default:\n    restapiRoot: ..\n  devProxy:\n    remoteServices:\n      - { uri: /customers, host: mock-server, port: 3008, active: true }\n',
        );
        writeFileSync(
          join(project, 'config.yml'),
          'projectName: front\napiVersion: v9.9.9\nauthor: e2e\nlicence: MIT\nserviceUrlPrefix: /rest\nservicePort: 3010\nbaseUrl: http://localhost:3010/rest\nservicesRoot: services\nservices: []\n',
        );
        proxy = await new GenericContainer(`restbus/mock-server:${E2E_TAG}`)
          .withNetworkMode(stackOf().network)
          .withCopyDirectoriesToContainer([{ source: project, target: '/project' }])
          .withCommand(['--port', '3010'])
          .withExposedPorts(3010)
          .withWaitStrategy(Wait.forLogMessage(/"msg":"serving"/))
          .start();
      });
      afterAll(async () => {
        await proxy?.stop();
        rmSync(project, { recursive: true, force: true });
      });

      it('forwards a matching request to the mock-server container and answers what it answered', async () => {
        const base = `http://${proxy!.getHost()}:${proxy!.getMappedPort(3010)}`;
        const response = await fetch(`${base}/rest/customers`);
        expect(response.status).toBe(200);
        // This project has no services: the answer (and the version header) can only come from the other container.
        expect(response.headers.get('x-application-api-version')).toBe('v0.0.0');
        expect(await response.json()).toHaveLength(2);
        expect((await fetch(`${base}/rest/monitoring/isAlive`)).status).toBe(404);
      });
    });
  });

  describe('the tool container (docker compose run --rm tool …)', () => {
    let folder: string;
    const owner = 4321;

    beforeAll(async () => {
      await stackOf().compose(['--profile', 'tool', 'build', 'tool']);
      folder = mkdtempSync(join(tmpdir(), 'restbus-tool-'));
      // The invoking user owns the folder: here a uid that is not root and not the image's user.
      if (process.getuid?.() === 0) chownSync(folder, owner, owner);
    });
    afterAll(() => folder && rmSync(folder, { recursive: true, force: true }));

    it('creates a project in the folder it runs in, owned by the folder owner', async () => {
      const output = await stackOf().compose(['--profile', 'tool', 'run', '--rm', '-T', 'tool', 'create', 'demo'], {
        PWD: folder,
      });
      expect(output).toContain('demo');
      const config = join(folder, 'demo/config.yml');
      expect(readFileSync(config, 'utf8')).toContain('projectName: demo');
      expect(existsSync(join(folder, 'demo/services/monitoring/isAlive/service.yml'))).toBe(true);
      const expectedOwner = process.getuid?.() === 0 ? owner : process.getuid?.();
      expect(statSync(config).uid).toBe(expectedOwner);
    });

    it('runs from a folder outside the repository with bin/rest-tool-docker: create, add and serve', async () => {
      const outside = mkdtempSync(join(tmpdir(), 'restbus-outside-'));
      if (process.getuid?.() === 0) chownSync(outside, owner, owner);
      const script = join(REPO_ROOT, 'bin', 'rest-tool-docker');
      const env = { ...process.env, COMPOSE_PROJECT_NAME: stackOf().projectName, RESTBUS_TAG: E2E_TAG };
      try {
        const created = await execFileAsync(script, ['create', 'shop'], { cwd: outside, env, encoding: 'utf8' });
        // Messages name the user's folders, never the container's mount point.
        expect(created.stdout).toContain('created the project shop');
        expect(created.stdout).not.toContain('/work/');
        const project = join(outside, 'shop');
        await execFileAsync(script, ['add', '-t', 'COLLECTION', '-p', '/orders', '-u', '/orders', '-n', 'orders'], {
          cwd: project,
          env,
        });
        expect(readFileSync(join(project, 'config.yml'), 'utf8')).toContain('- /orders');

        const port = await freePort();
        const server = spawn(script, ['serve'], { cwd: project, env: { ...env, REST_TOOL_PORT: String(port) } });
        let output = '';
        server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        try {
          let response: Response | undefined;
          for (let attempt = 0; attempt < 60 && !response?.ok; attempt++) {
            response = await fetch(`http://127.0.0.1:${port}/rest/orders`).catch(() => undefined);
            if (!response?.ok) await new Promise((resolve) => setTimeout(resolve, 500));
          }
          expect(`${response?.status} ${output}`).toMatch(/^200 /);
          expect(Array.isArray(await response!.json())).toBe(true);
        } finally {
          const exited = new Promise((resolve) => server.once('exit', resolve));
          server.kill('SIGTERM');
          await exited;
        }
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    it('adds a service to that project, and exits 2 (a usage error) with nothing written for a bad one', async () => {
      const project = join(folder, 'demo');
      const tool = (...args: string[]) =>
        stackOf().compose(['--profile', 'tool', 'run', '--rm', '-T', 'tool', ...args], { PWD: project });
      await tool('add', '-t', 'COLLECTION', '-p', '/orders', '-u', '/orders', '-n', 'orders');
      expect(readFileSync(join(project, 'config.yml'), 'utf8')).toContain('- /orders');
      await expect(tool('add', '-t', 'WRONG', '-p', '/x', '-u', '/x', '-n', 'x')).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/'WRONG' is invalid/),
      });
      expect(existsSync(join(project, 'services/x'))).toBe(false);
    });
  });
}
