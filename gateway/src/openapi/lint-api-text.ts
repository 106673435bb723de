import { Document, Spectral, type ISpectralDiagnostic, type RulesetDefinition } from '@stoplight/spectral-core';
import { Yaml } from '@stoplight/spectral-parsers';
import { Resolver } from '@stoplight/spectral-ref-resolver';
// The OpenAPI ruleset alone: the package's main entry loads the AsyncAPI and Arazzo rulesets too (their schemas), a
// tenth of the lint worker's start (issue 45).
import oas from '@stoplight/spectral-rulesets/dist/oas';
import type { Diagnostic } from '@restbus/openapi';
import { formatPath, valueAt } from '@restbus/openapi/paths';

/**
 * Spectral's rules that find what a peer (Prism, Swagger UI, Redoc) would get wrong or read differently, each a
 * warning: the official schemas, examples that do not match their schema, path parameters, duplicates. Style
 * rules (tags, descriptions of the API, contact) are left out: they say nothing about serving it.
 */
const RULES = [
  'oas2-schema',
  'oas3-schema',
  'oas2-valid-schema-example',
  'oas2-valid-media-example',
  'oas3-valid-schema-example',
  'oas3-valid-media-example',
  'path-params',
  'operation-parameters',
  'operation-operationId-unique',
  'oas2-operation-security-defined',
  'oas3-operation-security-defined',
  'typed-enum',
  'duplicated-entry-in-enum',
];

/** `"200" property must have required property "description".` → `missing required "description"` */
function rewordMessage(message: string): string {
  const missing = /must have required property "([^"]+)"/.exec(message);
  if (missing) return `missing required "${missing[1]}"`;
  return message.replace(/^"[^"]*" property /, '').replace(/\.$/, '');
}

/**
 * Where Spectral's example check reports its own limits as faults of the document (seen on real APIs): it checks
 * an XML or text example, a string of that text, as if it were the JSON the schema describes; it takes properties
 * named `id` in an example for schema identifiers; it cannot read OpenAPI 3.0's `nullable` beside `allOf`.
 */
function isExampleCheckerLimit(result: ISpectralDiagnostic): boolean {
  if (!/valid-(media|schema)-example$/.test(String(result.code))) return false;
  const content = result.path.indexOf('content');
  const mediaType = content >= 0 ? String(result.path[content + 1] ?? '') : '';
  if (mediaType !== '' && !/json/i.test(mediaType)) return true;
  return /resolves to more than one schema|"nullable" cannot be used without "type"/.test(result.message);
}

const MEDIA_TYPE_MEMBERS = new Set(['schema', 'example', 'examples', 'encoding', 'itemSchema']);

/**
 * OAS 3.2's `itemSchema` of a sequential media type (an event stream's one event), which restbus reads in 3.0 and 3.1
 * documents too (infra/openapi's model): the official 3.0 and 3.1 schemas do not know it yet (3.0 names the member,
 * 3.1 says the media type has "unevaluated properties"; then only when itemSchema is its one unknown member).
 */
function isItemSchemaOfMediaType(result: ISpectralDiagnostic, data: unknown): boolean {
  const { path } = result;
  if (result.code !== 'oas3-schema') return false;
  if (String(path.at(-1)) === 'itemSchema' && String(path.at(-3)) === 'content')
    return /is not expected to be here/.test(result.message);
  if (String(path.at(-2)) !== 'content' || !/unevaluated properties/.test(result.message)) return false;
  const media = valueAt(data, path);
  if (typeof media !== 'object' || media === null || !('itemSchema' in media)) return false;
  return Object.keys(media).every((key) => MEDIA_TYPE_MEMBERS.has(key) || key.startsWith('x-'));
}

/**
 * Spectral wants every scope of a security requirement declared in the scheme's `flows`, which an `openIdConnect`
 * scheme has none of: its scopes are the issuer's, and OpenAPI 3.x lists them in the requirement all the same (what
 * `--auth verify` checks). A scope of an oauth2 scheme that its flows lack is still reported.
 */
function isOpenIdConnectScope(result: ISpectralDiagnostic, data: unknown): boolean {
  if (result.code !== 'oas3-operation-security-defined' || !/must be listed among scopes/.test(result.message))
    return false;
  const scheme = valueAt(data, ['components', 'securitySchemes', String(result.path.at(-2))]);
  return typeof scheme === 'object' && scheme !== null && (scheme as { type?: unknown }).type === 'openIdConnect';
}

const isOneOfNoise = (result: ISpectralDiagnostic): boolean =>
  /must match exactly one schema in oneOf|must match a schema in anyOf/.test(result.message);

function startsWith(path: ReadonlyArray<string | number>, prefix: ReadonlyArray<string | number>): boolean {
  return prefix.length <= path.length && prefix.every((key, i) => String(path[i]) === String(key));
}

/**
 * The official schemas say most things as "one of these forms", and a validator reports every form's complaint.
 * Only the form the author meant is kept: a reference form when the object has no `$ref` (Spectral already
 * leaves those out), the "none matched" summary when a more precise complaint lies at or below it, and for a
 * Swagger 2 parameter the form its own `in` names (a query parameter is not told it lacks a body's `schema`).
 */
function selectRelevant(results: ISpectralDiagnostic[], data: unknown): ISpectralDiagnostic[] {
  const schemaResults = results.filter((result) => /-schema$/.test(String(result.code)));
  return results.filter((result) => {
    if (isOneOfNoise(result)) {
      return !schemaResults.some(
        (other) => other !== result && !isOneOfNoise(other) && startsWith(other.path, result.path),
      );
    }
    if (result.code !== 'oas2-schema') return true;
    const parameterPath = /\.parameters\.[^.]+(\.in)?$/.test(formatPath(result.path))
      ? result.path.slice(0, String(result.path.at(-1)) === 'in' ? -1 : undefined)
      : undefined;
    if (!parameterPath) return true;
    const location = (valueAt(data, parameterPath) as { in?: unknown } | undefined)?.in;
    if (typeof location !== 'string' || !['query', 'header', 'path', 'formData', 'body'].includes(location))
      return true;
    const isIn = String(result.path.at(-1)) === 'in';
    if (isIn) return false; // its `in` is a valid location: the complaint came from another form's
    if (location === 'body') return !/required property "(type)"/.test(result.message);
    return !/required property "(schema)"/.test(result.message);
  });
}

export interface TextLinter {
  /** Spectral's findings in one file, as warnings in our format, the noise of schema branches left out. */
  lint(file: string, text: string): Promise<Diagnostic[]>;
}

/**
 * A Spectral that reads nothing itself: it resolves `$refs` inside the file only (the loader reads the others,
 * within its limits and its folder), and never fetches a URL. Runs in the lint worker (see createApiLinter).
 */
export function createTextLinter(): TextLinter {
  const spectral = new Spectral({ resolver: new Resolver({ resolvers: {} }) });
  spectral.setRuleset({
    extends: [[oas as RulesetDefinition, 'off']],
    rules: Object.fromEntries(RULES.map((rule) => [rule, 'warn'])),
  });
  return {
    async lint(file, text) {
      const document = new Document(text, Yaml, file);
      const results = await spectral.run(document, { ignoreUnknownFormat: true });
      const relevant = selectRelevant(
        // `$refs` to other files are the loader's to resolve and report; YAML 1.2 reads `200:` as a number, which
        // every OpenAPI tool takes as the status code "200".
        results.filter(
          (result) =>
            result.code !== 'invalid-ref' &&
            !/Mapping key must be a string scalar/.test(result.message) &&
            !isExampleCheckerLimit(result) &&
            !isItemSchemaOfMediaType(result, document.data) &&
            !isOpenIdConnectScope(result, document.data),
        ),
        document.data,
      );
      const seen = new Set<string>();
      const diagnostics: Diagnostic[] = [];
      for (const result of relevant) {
        const diagnostic: Diagnostic = {
          severity: 'warning',
          file,
          line: result.range.start.line + 1,
          column: result.range.start.character + 1,
          path: formatPath(result.path),
          message: rewordMessage(result.message),
        };
        const key = `${diagnostic.path}\0${diagnostic.message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        diagnostics.push(diagnostic);
      }
      return diagnostics;
    },
  };
}
