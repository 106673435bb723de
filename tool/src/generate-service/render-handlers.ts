import type { ApiModel } from '@restbus/openapi';
import { toPropertyKey } from './to-property-key';

/** handlers.ts, written once: a stub per operation answering 501 until the user writes it. */
export function renderHandlers(model: ApiModel): string {
  const stubs = model.operations
    .map(
      (operation) =>
        `    // ${operation.method.toUpperCase()} ${operation.path}\n` +
        `    ${toPropertyKey(operation.name)}: async () => notImplemented(${JSON.stringify(operation.name)}),`,
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
