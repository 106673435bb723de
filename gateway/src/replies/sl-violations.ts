import type { ReplyViolation } from './reply-violation';

/**
 * The header Stoplight Prism sets on a proxied answer whose request or response breaks the contract; its value is
 * a JSON array of `{location, severity, code, message}` (location: `["response", "body", "items", "3"]`), as
 * Prism's http-server writes it (packages/http-server/src/server.ts, `addViolationHeader` and
 * `createErrorObjectWithPrefix`).
 */
export const VIOLATIONS_HEADER = 'sl-violations';

/** Prism's cap (MAX_SAFE_HEADER_LENGTH, "8kb minus some"): a longer value is cut after `Too many violations! `. */
export const MAX_VIOLATIONS_HEADER_LENGTH = 8 * 1024 - 100;
const TOO_MANY = 'Too many violations! ';

export interface PrismViolation {
  location: string[];
  /** `Error` or `Warning`, as Prism names DiagnosticSeverity. */
  severity: string;
  code?: string;
  message: string;
}

/** The location Prism gives: `response` then the body's path parts, `header` and the name, or nothing more. */
function toPrismLocation(violation: ReplyViolation): string[] {
  switch (violation.kind) {
    case 'body':
      return [
        'response',
        'body',
        ...violation.pointer
          .split('/')
          .slice(1)
          .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~')),
      ];
    case 'header':
      return ['response', 'header', violation.pointer.slice('header/'.length)];
    default:
      return ['response'];
  }
}

export function toPrismViolation(violation: ReplyViolation): PrismViolation {
  return {
    location: toPrismLocation(violation),
    severity: violation.severity === 'error' ? 'Error' : 'Warning',
    ...(violation.code !== undefined && { code: violation.code }),
    message: violation.message,
  };
}

/**
 * The header's value: Prism's JSON, cut as Prism cuts it, and at `room` characters when less is left under the
 * response head's limit. Characters outside ASCII are written as JSON escapes, which read back the same: Node
 * refuses a header value with them (a Prism issue users patch around), and the value stays one JSON text.
 */
export function formatViolationsHeader(violations: readonly ReplyViolation[], room = Infinity): string {
  const text = JSON.stringify(violations.map(toPrismViolation)).replace(
    /[^\x20-\x7e]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const limit = Math.min(MAX_VIOLATIONS_HEADER_LENGTH, room - TOO_MANY.length);
  return text.length > limit ? `${TOO_MANY}${text.substring(0, Math.max(0, limit))}` : text;
}
