import { createMarkdownRenderer } from './render-markdown';

describe('createMarkdownRenderer', () => {
  const markdown = createMarkdownRenderer();

  it('renders Markdown blocks and inline text', () => {
    expect(markdown.block('# Title\n\n- one\n- *two*')).toBe(
      '<h1>Title</h1>\n<ul>\n<li>one</li>\n<li><em>two</em></li>\n</ul>\n',
    );
    expect(markdown.inline('Get **one** `user`')).toBe('Get <strong>one</strong> <code>user</code>');
  });

  it('shows raw HTML as text instead of letting it run', () => {
    expect(markdown.block('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(markdown.inline('a <img src=x onerror=alert(1)> b')).toBe('a &lt;img src=x onerror=alert(1)&gt; b');
  });

  it('keeps web, mail and relative links, and drops script and data URLs from links and images', () => {
    expect(markdown.inline('[w](https://example.com) [m](mailto:a@b.c) [r](../x/service.html#GET)')).toBe(
      '<a href="https://example.com">w</a> <a href="mailto:a@b.c">m</a> <a href="../x/service.html#GET">r</a>',
    );
    expect(markdown.inline('[a](javascript:alert(1)) [b](JavaScript:x) [c](data:text/html,x) ![d](javascript:x)')).toBe(
      'a b c d',
    );
    expect(markdown.inline('[e](<java\tscript:x>)')).not.toContain('href');
  });

  it('renders nothing for absent, null or blank text', () => {
    expect(markdown.block(undefined)).toBe('');
    expect(markdown.block(null)).toBe('');
    expect(markdown.inline('  ')).toBe('');
  });
});
