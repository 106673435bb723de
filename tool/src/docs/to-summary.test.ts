import { createMarkdownRenderer } from './render-markdown';
import { toSummary } from './to-summary';

const markdown = createMarkdownRenderer();

describe('toSummary()', () => {
  it('ends at the first sentence, even when the description wraps it over several lines', () => {
    const description =
      'Tells whether the server is up. Load balancers and monitoring tools call it; it answers `true` while the\n' +
      'server runs, with the API version in the `X-Application-API-Version` header.\n';
    expect(toSummary(description, markdown)).toBe('Tells whether the server is up.');
  });

  it('keeps a first paragraph without a sentence end whole, and stops at the blank line or the next block', () => {
    expect(toSummary('The customers of the shop', markdown)).toBe('The customers of the shop');
    expect(toSummary('Line one\n\nLine two.', markdown)).toBe('Line one');
    expect(toSummary('Orders of\nthe shop:\n- newest first\n- paid', markdown)).toBe('Orders of the shop:');
  });

  it('takes the text of a leading heading', () => {
    expect(toSummary('# The orders\n\nEvery order of the shop.', markdown)).toBe('The orders');
  });

  it('does not end a sentence at an abbreviation, a file name or a version', () => {
    expect(toSummary('Finds orders, e.g. by status, in orders.json of v1.2 servers. More.', markdown)).toBe(
      'Finds orders, e.g. by status, in orders.json of v1.2 servers.',
    );
  });

  it('cuts a first sentence longer than the limit at a word boundary, with an ellipsis', () => {
    const description = 'One two three four five six seven eight nine ten. Eleven.';
    expect(toSummary(description, markdown, 20)).toBe('One two three four…');
    // A word that ends right at the limit stays.
    expect(toSummary(description, markdown, 18)).toBe('One two three four…');
    expect(toSummary(description, markdown, 17)).toBe('One two three…');
    expect(toSummary('Supercalifragilistic words.', markdown, 10)).toBe('Supercalif…');
  });

  it('renders Markdown to plain text, and keeps characters HTML would read as markup', () => {
    expect(toSummary('Lists *all* the [orders](../x.html) & `<items>`.', markdown)).toBe(
      'Lists all the orders & <items>.',
    );
    expect(toSummary('</div><img src=x onerror=alert(1)> done', markdown)).toBe(
      '</div><img src=x onerror=alert(1)> done',
    );
  });

  it('is empty for a missing or blank description', () => {
    expect(toSummary(undefined, markdown)).toBe('');
    expect(toSummary('  \n', markdown)).toBe('');
  });
});
