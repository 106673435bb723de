import { extractShellBlocks, splitAndList, splitCommands, takeBackground } from './readme-blocks';

describe('extractShellBlocks', () => {
  it('finds the shell blocks with their opening line, and leaves the other languages and diagrams out', () => {
    const markdown = [
      '# A README', // 1
      '```', // 2
      'a diagram', // 3
      '```', // 4
      '```sh', // 5
      'npm ci', // 6
      '```', // 7
      '```yaml', // 8
      'key: value', // 9
      '```', // 10
      '- a list item', // 11
      '', // 12
      '  ~~~~bash', // 13
      '  echo inside the item', // 14
      '  ```', // 15
      '  ~~~~', // 16
    ].join('\n');
    expect(extractShellBlocks(markdown, 'README.md')).toEqual([
      { readme: 'README.md', line: 5, commands: [{ command: 'npm ci', comment: '', line: 6 }] },
      {
        readme: 'README.md',
        line: 13,
        // A shorter or other fence inside does not close it.
        commands: [
          { command: 'echo inside the item', comment: '', line: 14 },
          { command: '```', comment: '', line: 15 },
        ],
      },
    ]);
  });
});

describe('splitCommands', () => {
  it('joins continuation lines, keeps each comment apart, and leaves blank and comment lines out', () => {
    const lines = [
      'curl -s localhost:3007/-/ready     # {"status":"ready"}',
      '',
      '# a comment of its own',
      'kubectl create configmap restbus-api \\',
      '  --from-file=a.yml \\',
      '  --dry-run=client',
    ];
    expect(splitCommands(lines, 10)).toEqual([
      { command: 'curl -s localhost:3007/-/ready', comment: '{"status":"ready"}', line: 10 },
      { command: 'kubectl create configmap restbus-api --from-file=a.yml --dry-run=client', comment: '', line: 13 },
    ]);
  });

  it('reads a # inside quotes or a word as part of the command', () => {
    expect(splitCommands(['rest-tool add -n \'a # b\' -u /x#y "c # d" $#  # the comment'])).toEqual([
      { command: 'rest-tool add -n \'a # b\' -u /x#y "c # d" $#', comment: 'the comment', line: 1 },
    ]);
  });
});

describe('splitAndList and takeBackground', () => {
  it('split an && list outside quotes, and take a trailing & off', () => {
    expect(splitAndList("npx rest-tool create demo && cd demo && echo '&&'")).toEqual([
      'npx rest-tool create demo',
      'cd demo',
      "echo '&&'",
    ]);
    expect(takeBackground('npx rest-tool export-oas -o api.yml && npx restbus-gateway -r api.yml &')).toEqual({
      command: 'npx rest-tool export-oas -o api.yml && npx restbus-gateway -r api.yml',
      background: true,
    });
    expect(takeBackground('npm ci && npm test')).toEqual({ command: 'npm ci && npm test', background: false });
  });
});
