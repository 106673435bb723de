import * as openapiSampler from 'openapi-sampler';

type Sampler = (schema: Record<string, unknown>, options: unknown, document: unknown, context: unknown) => unknown;

/** The hooks openapi-sampler exports (untyped) to replace how one type is sampled. */
const hooks = openapiSampler as unknown as {
  _samplers: Record<string, Sampler>;
  _registerSampler(type: string, sampler: Sampler): void;
};

/**
 * The formats whose value Prism's sampler (@stoplight/json-schema-sampler 0.3, a fork of openapi-sampler) writes
 * otherwise than openapi-sampler 1.7 does; every other format has the same value in both.
 */
export const PRISM_FORMAT_VALUES: Readonly<Record<string, string>> = {
  'idn-email': 'пользователь@пример.ру',
  'idn-hostname': 'пример.ру',
  iri: 'http://пример.ру',
  'iri-reference': '../словарь',
};

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * The number Prism gives a schema. Prism first turns OpenAPI 2.0/3.0's boolean `exclusiveMinimum: true` (with
 * `minimum`) into 3.1's `exclusiveMinimum: <minimum>` and drops a `false` one; then the lower bound wins (`minimum`,
 * else one past `exclusiveMinimum`, halved back under an `exclusiveMaximum` it meets), else one under
 * `exclusiveMaximum`, else `maximum`, else 0 — whatever the `type` or `format` (no 0.1 for floats).
 */
export function sampleNumberAsPrism(schema: Record<string, unknown>): number {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  const lowExclusive = exclusiveMinimum === true ? minimum : exclusiveMinimum;
  const highExclusive = exclusiveMaximum === true ? maximum : exclusiveMaximum;
  const low = exclusiveMinimum === true ? undefined : minimum;
  const high = exclusiveMaximum === true ? undefined : maximum;
  if (isNumber(low)) return low;
  if (isNumber(lowExclusive)) {
    const above = lowExclusive + 1;
    return isNumber(highExclusive) && above === highExclusive ? (above + highExclusive - 1) / 2 : above;
  }
  if (isNumber(highExclusive)) return highExclusive - 1;
  return isNumber(high) ? high : 0;
}

let used = false;

/**
 * Makes openapi-sampler give numbers and strings the values Prism's static mock gives, so one document is answered
 * alike by both. openapi-sampler keeps its samplers per process (the gateway is their only user there), so this is
 * done once; a string of another format is left to openapi-sampler, which writes it as Prism does.
 */
export function usePrismSamples(): void {
  if (used) return;
  used = true;
  const sampleString = hooks._samplers.string;
  hooks._registerSampler('number', sampleNumberAsPrism);
  hooks._registerSampler('integer', sampleNumberAsPrism);
  hooks._registerSampler('string', (schema, options, document, context) => {
    const format = schema.format;
    if (typeof format === 'string' && Object.hasOwn(PRISM_FORMAT_VALUES, format)) return PRISM_FORMAT_VALUES[format];
    return sampleString(schema, options, document, context);
  });
}
