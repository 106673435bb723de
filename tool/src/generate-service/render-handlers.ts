import type { ApiModel } from '@restbus/openapi';
import { toObjectKey, toStringLiteral } from './to-source-literal';

/** handlers.ts, written once: a stub per operation answering 501 until the user writes it. */
export function renderHandlers(model: ApiModel): string {
  // The document's names only as string literals: no comment, and `__proto__` a key (see toObjectKey).
  const stubs = model.operations
    .map(
      (operation) =>
        `    ${toObjectKey(operation.name)}: async () => notImplemented(${toStringLiteral(operation.name)}),`,
    )
    .join('\n');
  return `// Your handlers: rest-tool generate-service wrote this file once and never touches it again. Each operation of
// the API has one; the compiler says which are missing after the document changes (src/generated/contract.ts).
import { notImplemented, type ServiceContext } from '@restbus/infra';
import type { Handlers } from './generated/contract';

export function createHandlers(_context: ServiceContext<object>): Handlers {
  return {
${stubs}
  };
}
`;
}
