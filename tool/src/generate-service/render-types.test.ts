import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { compileFolder } from './__tests__/compile-folder';
import { generateService } from './generate-service';

const root = resolve(__dirname, '../../..');
const fixtures = join(__dirname, '__tests__/fixtures');

// Inside the repository, so that `@restbus/infra` resolves as it does for a service of this workspace.
let scratch: string;
beforeAll(async () => {
  await mkdir(join(root, '.scratch'), { recursive: true });
  scratch = await mkdtemp(join(root, '.scratch', 'render-types-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function generateAndCompile(name: string): Promise<{ errors: string[]; types: string }> {
  const dir = join(scratch, name);
  await generateService({ cwd: root, file: join(fixtures, `${name}.yml`), folder: dir });
  return {
    errors: compileFolder(dir).map(({ file, message }) => `${file}: ${message}`),
    types: await readFile(join(dir, 'src/generated/api-types.ts'), 'utf8'),
  };
}

describe('the types of documents openapi-typescript alone renders wrong', () => {
  it('compile under strict when a subtype declares its parent discriminator property itself', async () => {
    const { errors, types } = await generateAndCompile('discriminator-redeclared');
    expect(errors).toEqual([]);
    // The subtype's own declaration wins: what the document says of the property.
    expect(types).toMatch(/"AddIntent": \{\n\s*"class": "AddIntent";\n\s*"item"\?: string;/);
    expect(types).toContain('"method": "add.confirm" | "add.handle";');
  });

  it('compile under strict when a `$ref` takes a schema or a parameter from another path, even in a cycle', async () => {
    const { errors, types } = await generateAndCompile('ref-into-paths');
    expect(errors).toEqual([]);
    expect(types).not.toContain('["schema"]');
  });
});
