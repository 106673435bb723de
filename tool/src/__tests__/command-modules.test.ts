import { join } from 'node:path';
import { makeTempDir, runNode } from './tool-helpers';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');
/** What the commands do (their options' parsers and texts are a few lines beside it), and the heavy libraries. */
const COMMAND_PARTS =
  /tool\/dist\/(add\/add-services|add\/read-bulk-file|create\/create-project|(docs|export-oas|generate-service|import-oas|testgen|validate)\/)|node_modules\/(typescript|swagger2openapi|handlebars|marked)\//;

/** The built rest-tool run with `args` in `cwd`: the files of the tool and the libraries it loaded, by their part. */
async function partsLoadedBy(cwd: string, args: string[]): Promise<string[]> {
  const script =
    `process.argv.splice(1, Infinity, ${JSON.stringify(MAIN)}, ...${JSON.stringify(args)});` +
    `process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(Object.keys(require.cache))));` +
    `require(${JSON.stringify(MAIN)});`;
  const { code, stderr } = await runNode(cwd, ['-e', script]);
  expect(code).toBe(0);
  const loaded = JSON.parse(stderr.slice(stderr.lastIndexOf('\nLOADED ') + 8)) as string[];
  return [...new Set(loaded.flatMap((file) => file.match(COMMAND_PARTS)?.[0] ?? []))].sort();
}

// Counted, not timed: which modules a start loads. Loaded all at once, the commands' modules were half of every
// start (0.55-0.65 s of `rest-tool --version`, 0.3 s after; `create` 0.77 s, 0.45 after).
describe('rest-tool loads what the command it runs uses', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeAll(async () => {
    temp = await makeTempDir();
  });
  afterAll(() => temp.remove());

  it('loads no command module for --version', async () => {
    expect(await partsLoadedBy(temp.dir, ['--version'])).toEqual([]);
  });

  it('loads only what create uses to create a project', async () => {
    expect(await partsLoadedBy(temp.dir, ['create', 'demo'])).toEqual(['tool/dist/create/create-project']);
  });
});
