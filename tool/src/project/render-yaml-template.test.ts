import { parse } from 'yaml';
import { fillPlaceholders, renderYamlTemplate, stringifyYaml } from './render-yaml-template';

const template = [
  '# A service: {{name}}',
  'name: "{{name}} service"',
  'description: |',
  '  {{description}}',
  'methods:',
  '  GET:',
  '    # implementation: api.get{{name}}',
  '    statusCode: &OkStatusCode 200',
  '    url: "{{uriTemplate}}"',
  '  PUT:',
  '    statusCode: *OkStatusCode',
  '',
].join('\n');

/** Text that broke upstream's mustache-into-YAML generation, and more. */
const awkward = [
  'orders: v2',
  'A & B <x> "q" \'s\'',
  '#not a comment',
  '- dash',
  '*star &amp',
  '{"flow": [1]}',
  'true',
  '0x1F',
  'null',
  '  leading and trailing  ',
  'line one\nline two: yes\n\n  indented # hash',
  'trailing newlines\n\n',
  'tab\there',
  'ünïcödé ✓ 日本語 🙂',
  '%TAG ! x',
  '@at `tick`',
  '',
];

describe('renderYamlTemplate() and stringifyYaml()', () => {
  it.each(awkward)('writes %j so that it reads back exactly', (text) => {
    const rendered = renderYamlTemplate(template, { name: text, description: text, uriTemplate: '/a/{id}' }, 't.yml');
    const value = parse(stringifyYaml(rendered, 't.yml')) as Record<string, unknown>;
    expect(value.name).toBe(`${text} service`);
    expect(value.description).toBe(`${text}\n`);
    expect((value.methods as { GET: { url: string } }).GET.url).toBe('/a/{id}');
  });

  it('keeps anchors, aliases and comments, and fills comments on one line', () => {
    const text = stringifyYaml(
      renderYamlTemplate(template, { name: 'Multi\nLine', description: 'd', uriTemplate: '/u' }, 't.yml'),
      't.yml',
    );
    expect(text).toContain('# A service: Multi Line\n');
    expect(text).toContain('# implementation: api.getMulti Line\n');
    expect(text).toContain('&OkStatusCode 200');
    expect(text).toContain('statusCode: *OkStatusCode');
  });

  it('names the template and the line when the template itself is not YAML', () => {
    expect(() => renderYamlTemplate('a: 1\nname: {{name}} service\n', { name: 'x' }, 'tpl/service.yml')).toThrow(
      /^tpl\/service\.yml:2: the template is not valid YAML/,
    );
  });
});

describe('fillPlaceholders()', () => {
  it('fills in one pass and leaves unknown placeholders alone', () => {
    expect(fillPlaceholders('{{a}} {{ b }} {{c}}', { a: '{{b}}', b: 'B' })).toBe('{{b}} B {{c}}');
  });
});
