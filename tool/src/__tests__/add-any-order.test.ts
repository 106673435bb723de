import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '@restbus/infra';
import { startMockServer } from '@restbus/mock-server';
import { makeTempDir, runTool, snapshotTree } from './tool-helpers';

const collection = ['-t', 'COLLECTION', '-p', '/orders', '-u', '/orders', '-n', 'Orders'];
const resource = ['-t', 'RESOURCE', '-p', '/orders/order', '-u', '/orders/{id}', '-n', 'Order'];
const bulkCollection = { type: 'COLLECTION', path: '/orders', uriTemplate: '/orders', name: 'Orders' };
const bulkResource = { type: 'RESOURCE', path: '/orders/order', uriTemplate: '/orders/{id}', name: 'Order' };

describe('rest-tool add and add-bulk, services nested in any order', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let project: string;
  const tool = (args: string[]) => runTool(project, args);
  const ordersDir = (): string => join(project, 'services', 'orders');

  beforeEach(async () => {
    temp = await makeTempDir();
    await runTool(temp.dir, ['create', 'p']);
    project = join(temp.dir, 'p');
  });
  afterEach(() => temp.remove());

  /** The project validates, lists both services, and the mock server answers both routes from their mock files. */
  async function expectBothServed(): Promise<void> {
    expect(await tool(['validate'])).toMatchObject({ code: 0, stderr: '' });
    const config = await readFile(join(project, 'config.yml'), 'utf8');
    expect(config).toMatch(/^ {2}- \/orders$/m);
    expect(config).toMatch(/^ {2}- \/orders\/order$/m);
    const server = await startMockServer({
      projectDir: project,
      port: 0,
      host: '127.0.0.1',
      watch: false,
      logger: createLogger({ name: 'mock', level: 'silent' }),
    });
    try {
      const list = await fetch(`${server.url}/rest/orders`);
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual(
        JSON.parse(await readFile(join(ordersDir(), 'getCollection-responseBody.json'), 'utf8')),
      );
      const one = await fetch(`${server.url}/rest/orders/42`);
      expect(one.status).toBe(200);
      expect(await one.json()).toEqual(
        JSON.parse(await readFile(join(ordersDir(), 'order', 'getResource-responseBody.json'), 'utf8')),
      );
    } finally {
      await server.close();
    }
  }

  it('adds a COLLECTION /orders beside its existing RESOURCE /orders/order, leaving that one as it was', async () => {
    expect(await tool(['add', ...resource])).toMatchObject({ code: 0, stderr: '' });
    const resourceBefore = await snapshotTree(join(ordersDir(), 'order'));
    const result = await tool(['add', ...collection]);
    expect(result).toEqual({
      code: 0,
      stdout: 'added the COLLECTION service /orders (/orders) to config.yml\n',
      stderr: '',
    });
    expect((await readdir(ordersDir())).sort()).toEqual([
      'getCollection-responseBody.json',
      'order',
      'postCollection-requestBody.json',
      'postCollection-responseBody.json',
      'service.yml',
    ]);
    expect(await snapshotTree(join(ordersDir(), 'order'))).toEqual(resourceBefore);
    await expectBothServed();
  });

  it('adds a RESOURCE /orders/order below its existing COLLECTION /orders', async () => {
    expect(await tool(['add', ...collection])).toMatchObject({ code: 0, stderr: '' });
    expect(await tool(['add', ...resource])).toMatchObject({ code: 0, stderr: '' });
    await expectBothServed();
  });

  it.each([
    ['the resource first', [bulkResource, bulkCollection]],
    ['the collection first', [bulkCollection, bulkResource]],
  ])('adds both in one add-bulk run, %s', async (_order, entries) => {
    await writeFile(join(project, 'bulk.json'), JSON.stringify(entries));
    const result = await tool(['add-bulk', '-s', 'bulk.json']);
    expect(result).toMatchObject({ code: 0, stderr: '', stdout: expect.stringContaining('2 services added') });
    await expectBothServed();
  });

  it('adds the collection into a folder that holds only other folders, as one made by hand', async () => {
    await mkdir(join(ordersDir(), 'archive'), { recursive: true });
    expect(await tool(['add', ...collection])).toMatchObject({ code: 0, stderr: '' });
    expect(await readdir(ordersDir())).toEqual(expect.arrayContaining(['archive', 'service.yml']));
  });

  describe('refuses a true conflict, naming what is in the way and what to run instead, and writes nothing:', () => {
    const refuse = async (args: string[]): Promise<string> => {
      const before = await snapshotTree(temp.dir);
      const result = await tool(args);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(await snapshotTree(temp.dir)).toEqual(before);
      return result.stderr;
    };

    it('a service listed at that path', async () => {
      await tool(['add', ...collection]);
      expect(await refuse(['add', ...collection, '-n', 'Orders again'])).toBe(
        'rest-tool: /orders is already listed in config.yml (the COLLECTION service "Orders service" at /orders, ' +
          `in ${join('services', 'orders', 'service.yml')}): give the new service another -p/--path, ` +
          `or edit ${join('services', 'orders', 'service.yml')} instead\nrest-tool: nothing was added\n`,
      );
    });

    it('a service.yml in the folder that config.yml does not list, with the line that would list it', async () => {
      await tool(['add', ...resource]);
      await writeFile(
        join(ordersDir(), 'service.yml'),
        'name: Old orders\nstyle: COLLECTION\nuriTemplate: /old\nmethods: {}\n',
      );
      expect(await refuse(['add', ...collection])).toBe(
        `rest-tool: ${join('services', 'orders', 'service.yml')} exists already (the COLLECTION service ` +
          `"Old orders" at /old, in ${join('services', 'orders', 'service.yml')}) but /orders is not listed in ` +
          'config.yml: to serve ' +
          'that service, add "- /orders" to services in config.yml; to add a new one, give the new service another ' +
          '-p/--path or remove that service.yml first\nrest-tool: nothing was added\n',
      );
    });

    it('a file the new service would write, in add-bulk with the hint for its "path" field', async () => {
      await tool(['add', ...resource]);
      await writeFile(join(ordersDir(), 'getCollection-responseBody.json'), '[]');
      await writeFile(join(project, 'bulk.json'), JSON.stringify([bulkCollection]));
      expect(await refuse(['add-bulk', '-s', 'bulk.json'])).toBe(
        `rest-tool: bulk.json:1: /0: ${join('services', 'orders', 'getCollection-responseBody.json')} exists ` +
          'already, and the new service would write it: give the new service another "path", or move it away ' +
          'first\nrest-tool: nothing was added\n',
      );
    });

    it('a file where the service folder would be', async () => {
      await writeFile(join(project, 'services', 'orders'), 'a file');
      expect(await refuse(['add', ...collection])).toBe(
        `rest-tool: ${join('services', 'orders')} exists and is not a folder: give the new service another ` +
          '-p/--path, or move it away first\nrest-tool: nothing was added\n',
      );
    });
  });
});
