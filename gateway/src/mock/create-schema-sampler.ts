import { isJsonObject } from '@restbus/infra';
import { sample } from 'openapi-sampler';
import { usePrismSamples } from './use-prism-samples';

/** How large a value `-m` builds from a schema may be, and how much work building it may take. */
export interface SampleLimits {
  /** Bytes of the value's JSON text. */
  maxBytes: number;
  /** Reads of the schema (and of the examples it holds) the sampler may make: its work, about 20 a node built. */
  maxReads: number;
}

/**
 * 1 MiB: a thousand times a typical answer and the gateway's default body limit, so a sampled answer is never larger
 * than what the gateway accepts; 250,000 reads: about 25 ms of sampling (some 2,500 objects of a few properties),
 * far below the 100 ms a request may hold the event loop.
 */
export const SAMPLE_LIMITS: Readonly<SampleLimits> = { maxBytes: 1024 * 1024, maxReads: 250_000 };

/** A value built from a schema: its JSON text, and the value itself (plain data, nothing of the document's). */
export interface Sample {
  json: string;
  value: unknown;
}

/** The sample, none (the schema cannot be sampled), or why it would be too large to build. */
export type SampleResult = { sample?: Sample } | { tooLarge: string };

/** What a sample is written as: a value (sent as JSON), or an XML document built as the schema's `xml` says. */
export type SampleFormat = 'json' | 'xml';

export interface SchemaSampler {
  /**
   * Samples `schema` (its `$refs` resolved in `document`) within the limits; remembers a schema that is too large.
   * In `xml`, the sample's value is the XML text.
   */
  sample(schema: unknown, document: object | undefined, format?: SampleFormat): SampleResult;
}

class TooLarge extends Error {}

/** Longer strings weigh their length; shorter ones are paid for by the read that found them. */
const SHORT = 64;

/**
 * A view of the document in which every read is counted and weighed, and which throws TooLarge once the sampler has
 * read more than `maxReads` times or is about to build more than `maxBytes`: an array's `minItems` and a string's
 * `minLength` are weighed when they are read, before the sampler loops over them or builds the string.
 */
function createMeteredView(limits: SampleLimits): <T extends object>(target: T) => T {
  let reads = 0;
  let bytes = 0;
  const views = new WeakMap<object, object>();
  const weigh = (units: number, size: number): void => {
    reads += units;
    bytes += size;
    if (reads > limits.maxReads) throw new TooLarge(`more than ${limits.maxReads} steps to build`);
    if (bytes > limits.maxBytes) throw new TooLarge(`larger than ${limits.maxBytes} bytes`);
  };
  const handler: ProxyHandler<object> = {
    get(target, key) {
      // Prism's sampler knows no `prefixItems` (3.1's tuples): it samples `items`, else `contains`, else nothing.
      if (key === 'prefixItems') return undefined;
      const value: unknown = Reflect.get(target, key);
      if (typeof value === 'string') weigh(1, value.length > SHORT ? value.length : 0);
      else if (typeof value === 'number' && key === 'minLength') weigh(1, value);
      else if (typeof value === 'number' && key === 'minItems') {
        // openapi-sampler builds min(maxItems, minItems) items, each at least two characters ("0,").
        const most = Reflect.get(target, 'maxItems');
        const count = Math.min(typeof most === 'number' ? most : Infinity, value);
        weigh(1 + Math.max(0, count), 2 * Math.max(0, count));
      } else weigh(1, 0);
      return typeof value === 'object' && value !== null ? view(value) : value;
    },
  };
  const view = <T extends object>(target: T): T => {
    let known = views.get(target);
    if (!known) views.set(target, (known = new Proxy(target, handler)));
    return known as T;
  };
  return view;
}

/**
 * Samples `schema` as the one item of an array: openapi-sampler marks a schema as seen (to stop at its repeat) only
 * below the top, Prism's sampler at the top too, so an inline schema that refers to itself is cut one level higher
 * by Prism (`{child: {}}`, not `{child: {child: {}}}`). As an item, an inline top is marked as Prism marks it.
 */
function sampleAsItem(schema: object, options: object, document: object | undefined): unknown {
  // A top `$ref` is marked by both already; the loader may share that very object with the `$ref`s inside.
  if ('$ref' in schema) return sample(schema as never, options, document);
  const wrapper = { type: 'array', minItems: 1, maxItems: 1, items: schema };
  const [value] = sample(wrapper as never, options, document) as unknown[];
  return value;
}

/**
 * Builds values from schemas as `-m` answers with them (openapi-sampler: `example`, `default`, the first of `enum`,
 * else a value of the type and format; in XML, elements named as the schema's `xml` says), with the values Prism's
 * static mock gives (formats, numbers, tuples and recursion as its fork of openapi-sampler writes them: see
 * use-prism-samples.ts), within `limits`: the sampler reads the document through a metered view, so a schema whose
 * value would be too large (`minItems: 1e9`,
 * nested arrays, `minLength: 4e8`, a long default repeated) is given up after a bounded amount of work, never
 * built. Schemas found too large are remembered, per format (the sampler is made anew with the documents, on
 * reload).
 */
export function createSchemaSampler(limits: SampleLimits = SAMPLE_LIMITS): SchemaSampler {
  usePrismSamples();
  const tooLarge = { json: new WeakMap<object, string>(), xml: new WeakMap<object, string>() };
  return {
    sample(schema, document, format = 'json') {
      if (!isJsonObject(schema)) return {};
      const known = tooLarge[format].get(schema);
      if (known !== undefined) return { tooLarge: known };
      const view = createMeteredView(limits);
      try {
        const options = { quiet: true, skipWriteOnly: true };
        const value: unknown =
          format === 'xml'
            ? sample(view(schema) as never, { ...options, format }, document && view(document))
            : sampleAsItem(view(schema), options, document && view(document));
        // Written while still metered: an example the sample repeats is read (and weighed) each time.
        // undefined for a value JSON cannot write (undefined, a function), whatever its type says.
        const json: string | undefined = JSON.stringify(value);
        if (json === undefined) return {};
        if (json.length > limits.maxBytes) throw new TooLarge(`larger than ${limits.maxBytes} bytes`);
        return { sample: { json, value: typeof value === 'object' && value !== null ? JSON.parse(json) : value } };
      } catch (err) {
        if (!(err instanceof TooLarge)) return {}; // a cycle through another file, a schema the sampler cannot read
        tooLarge[format].set(schema, err.message);
        return { tooLarge: err.message };
      }
    },
  };
}
