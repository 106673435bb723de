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
      '<a href="https://example.com/" class="external" target="_blank" rel="noopener noreferrer">w</a> ' +
        '<a href="mailto:a@b.c">m</a> <a href="../x/service.html#GET">r</a>',
    );
    expect(markdown.inline('[a](javascript:alert(1)) [b](JavaScript:x) [c](data:text/html,x) ![d](javascript:x)')).toBe(
      'a b c d',
    );
    expect(markdown.inline('[e](<java\tscript:x>)')).not.toContain('href');
  });

  it('checks a link after the browser would decode it: entities, tabs, case and leading controls run nothing', () => {
    const spellings = [
      '&#106;avascript:alert(1)',
      '&#x6A;avascript:alert(1)',
      '&#0000106;avascript:alert(1)',
      '&#106avascript:alert(1)',
      'java&#x09;script:alert(1)',
      'java&Tab;script:alert(1)',
      'java&NewLine;script:alert(1)',
      'javascript&colon;alert(1)',
      'javascript&#58;alert(1)',
      '&#1;javascript:alert(1)',
      '<\tjavascript:alert(1)>',
      'javascript\\:alert(1)',
      'vbscript:msgbox(1)',
      '&#100;ata:text/html;base64,PHNjcmlwdD4=',
      'file:///etc/passwd',
    ];
    for (const href of spellings) {
      expect({ href, html: markdown.inline(`[a](${href}) ![b](${href})\n\n[c][r]\n\n[r]: ${href}`) }).toEqual({
        href,
        html: expect.not.stringMatching(/href=|src=/),
      });
    }
  });

  it('drops links that look relative but lead to another host, and opens plainly off-site ones apart', () => {
    for (const href of ['//evil.example/x', '/\\\\evil.example/x', '&#47;&#47;evil.example/x', '/&#92;evil.example']) {
      expect({ href, html: markdown.inline(`[a](${href})`) }).toEqual({ href, html: 'a' });
    }
    expect(markdown.inline('[a](https:evil.example/x "t\\" onclick=\\"x")')).toBe(
      '<a href="https://evil.example/x" title="t&quot; onclick=&quot;x" class="external" target="_blank" ' +
        'rel="noopener noreferrer">a</a>',
    );
    // An image from another host would be fetched as the page opens: it becomes a link to it instead.
    expect(markdown.inline('![logo](https://evil.example/logo.png)')).toBe(
      '<a href="https://evil.example/logo.png" class="external" target="_blank" rel="noopener noreferrer">logo</a>',
    );
    expect(markdown.inline('![logo](../img/logo.png "Logo")')).toBe(
      '<img src="../img/logo.png" alt="logo" title="Logo">',
    );
    expect(markdown.inline('![a" onerror="alert(1)](x.png "t&quot;")')).toBe(
      '<img src="x.png" alt="a&quot; onerror=&quot;alert(1)" title="t&quot;">',
    );
  });

  it('writes the href it checked: what the browser decodes is what was let through', () => {
    expect(markdown.inline('[q](https://example.com/?a=1&amp;b=2&c=3)')).toBe(
      '<a href="https://example.com/?a=1&amp;b=2&amp;c=3" class="external" target="_blank" rel="noopener noreferrer">q</a>',
    );
    expect(markdown.inline('[r](<../x y/ü.html#&#65;>)')).toBe('<a href="../x%20y/%C3%BC.html#A">r</a>');
  });

  it('renders nothing for absent, null or blank text', () => {
    expect(markdown.block(undefined)).toBe('');
    expect(markdown.block(null)).toBe('');
    expect(markdown.inline('  ')).toBe('');
  });
});
