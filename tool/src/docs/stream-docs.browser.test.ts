import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { createLogger } from '@restbus/infra';
import { startMockServer, type MockServer } from '@restbus/mock-server';
import { SERVER_CONFIG, writeFiles } from './__tests__/fixture-project';
import { generateDocs } from './generate-docs';
import { ARTIFACTS, launchChromium } from './__tests__/launch-chromium';

// The docs page of an event stream, served by the mock server, in Debian's Chromium: Try it watches the events
// arrive. A missing browser fails the test; it is never skipped.

const EVENTS = `name: Order events
description: What happens to orders, as it happens.
uriTemplate: /orders/events
style: OPERATION
methods:
  GET:
    summary: Watch the orders change
    responses:
      - name: OK
        statusCode: 200
        reason: One event per change
        headers:
          - { field: Content-Type, content: text/event-stream }
        mockBody: events.json
        validationSchema: event-schema.json
`;

const CONFIG = `projectName: Shop
apiVersion: v1.0.0
author: Ada
licence: MIT
serviceUrlPrefix: /rest
servicePort: 3007
baseUrl: http://localhost:3007/rest
servicesRoot: services
services:
  - /orders/events
`;

let root: string;
let browser: Browser;
let server: MockServer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rest-tool-stream-docs-'));
  const dir = await writeFiles(root, {
    'server/config.yml': SERVER_CONFIG,
    'config.yml': CONFIG,
    'services/orders/events/service.yml': EVENTS,
    'services/orders/events/events.json': JSON.stringify([
      { type: 'created', order: 'o-1', item: 'a <b>bold</b> pen' },
      { type: 'paid', order: 'o-1' },
      { type: 'shipped', order: 'o-1' },
    ]),
    'services/orders/events/event-schema.json': '{"type":"object","required":["type","order"]}\n',
  });
  await generateDocs({ projectDir: dir });
  const logger = createLogger({ name: 'mock', level: 'silent' });
  server = await startMockServer({
    projectDir: dir,
    port: 0,
    host: '127.0.0.1',
    watch: false,
    logger,
    eventInterval: 300,
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the docs page of an event stream, served by the mock server, in a headless Chromium', () => {
  it('says the answer is an event stream and shows its events arriving under Try it, until stopped', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const response = await page.goto(new URL('services/orders/events/service.html', `${server.url}/docs/`).href);
    expect(response?.status()).toBe(200);

    const responses = page.locator('section#GET .response');
    expect(await responses.locator('dl.facts').textContent()).toContain('An event stream (Server-Sent Events)');
    expect(await responses.locator('dt').allTextContents()).toEqual(
      expect.arrayContaining(['Mock events', 'Schema of one event']),
    );

    const tryIt = page.locator('section#GET details.try-it');
    await tryIt.locator('summary').click();
    const form = tryIt.locator('form');
    expect(await form.locator('textarea[data-headers]').inputValue()).toBe('Accept: text/event-stream');
    await form.getByRole('button', { name: 'Watch events' }).click();

    // The first event at once, the others one interval (300 ms) apart: seen one by one, not all at the end.
    const events = form.locator('.try-it-event');
    await events.first().waitFor();
    expect(await form.locator('.try-it-status .status').textContent()).toBe('200 OK');
    const firstSeen = await events.count();
    await events.nth(2).waitFor();
    expect(firstSeen).toBeLessThan(3);
    expect(await events.locator('.event-id').allTextContents()).toEqual(['id 1', 'id 2', 'id 3']);
    expect(await events.locator('.event-name').allTextContents()).toEqual(['message', 'message', 'message']);
    expect(await events.nth(0).locator('pre').textContent()).toBe(
      '{\n  "type": "created",\n  "order": "o-1",\n  "item": "a <b>bold</b> pen"\n}',
    );
    // Shown as text: the markup in an event does not run or render.
    expect(await events.locator('pre b').count()).toBe(0);
    expect(await form.locator('.try-it-stream-state').textContent()).toBe('Watching: 3 events.');
    expect(await form.getByRole('button', { name: 'Watch events' }).isDisabled()).toBe(true);

    await mkdir(ARTIFACTS, { recursive: true });
    await page.locator('section#GET').evaluate((section) => section.scrollIntoView());
    await page.screenshot({ path: join(ARTIFACTS, 'docs-stream.png') });

    await form.getByRole('button', { name: 'Stop' }).click();
    await form.locator('.try-it-stream-state', { hasText: 'Stopped' }).waitFor();
    expect(await form.locator('.try-it-stream-state').textContent()).toBe('Stopped after 3 events.');
    expect(await form.getByRole('button', { name: 'Stop' }).isVisible()).toBe(false);
    expect(await form.getByRole('button', { name: 'Watch events' }).isDisabled()).toBe(false);
    await page.close();
    expect(problems).toEqual([]);
  });
});
