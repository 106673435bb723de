import type { Handler } from '../executive/adapt-handler';
import type { Endpoint } from '../executive/create-executive';
import type { RequestProblem } from '../errors/restbus-error';
import { replyJson } from '../wire/replies';
import type { RequestMessage, ResponseMessage } from '../wire/types';
import { compileInputChecks } from './compile-input-checks';
import { createDeclaredContentType } from './create-declared-content-type';
import type { Contract, ContractOperation } from './contract';
import { toOperationSubject } from './to-operation-subject';

/** A handler as the contract service calls it: the checked input and the message; the declared reply. */
export type ContractHandler = (input: never) => unknown;

/** A call whose input breaks its operation's schemas: what is wrong, before its handler runs. */
export interface InputRefusal {
  operation: ContractOperation;
  /** The sentence the default reply's `error` says. */
  error: string;
  problems: RequestProblem[];
}

/** The reply to a refused input: `400 {error, code: "REQUEST_INVALID", problems}` unless a service says otherwise. */
export type RefuseInput = (refusal: InputRefusal, message: RequestMessage) => ResponseMessage;

export interface ContractEndpointsOptions {
  topicPrefix: string;
  contract: Contract;
  /** One per operation, by its name. */
  handlers: Readonly<Record<string, ContractHandler>>;
  refuseInput?: RefuseInput;
}

const refuseAsBadRequest: RefuseInput = ({ error, problems }) =>
  replyJson(400, { error, code: 'REQUEST_INVALID', problems });

/**
 * An endpoint per operation of a contract, in its order, for the executive (ServiceContext.register) or
 * startResponder to serve: named after the operation, on the subject the gateway sends it to, with `name`,
 * `operationId` (when the document gives one), `method` and `path` in its `$SRV.INFO` metadata. Each call's input is
 * checked against the operation's schemas (compiled once) before its handler runs. Throws, naming them, when
 * operations have no handler.
 */
export function createContractEndpoints(
  options: ContractEndpointsOptions,
): Array<{ endpoint: Endpoint; handler: Handler }> {
  const { contract, handlers } = options;
  const missing = contract.operations.filter((operation) => typeof handlers[operation.name] !== 'function');
  if (missing.length > 0) throw new Error(`no handler for ${missing.map((operation) => operation.name).join(', ')}`);
  const checks = compileInputChecks(contract);
  const refuseInput = options.refuseInput ?? refuseAsBadRequest;

  return contract.operations.map((operation) => {
    const check = checks.get(operation.name)!;
    const handle = handlers[operation.name] as (input: unknown) => ResponseMessage | Promise<ResponseMessage>;
    const typeReply = createDeclaredContentType(operation);
    const endpoint: Endpoint = {
      method: operation.method,
      uri: operation.path,
      name: operation.name,
      subject: toOperationSubject(options.topicPrefix, operation),
      metadata: {
        name: operation.name,
        ...(operation.operationId !== undefined && { operationId: operation.operationId }),
        method: operation.method.toUpperCase(),
        path: operation.path,
      },
    };
    // Not async: a handler's own promise is handed on as it is, without one more to wait for (a call costs less).
    const handler: Handler = (message) => {
      const checked = check(message);
      if (!checked.ok) {
        return Promise.resolve(refuseInput({ operation, error: checked.message, problems: checked.problems }, message));
      }
      // A generated handler's reply is typed by the contract; the responder checks it is a response message.
      const reply = handle(checked.input);
      if (!typeReply) return Promise.resolve(reply);
      return Promise.resolve(reply).then(typeReply);
    };
    return { endpoint, handler };
  });
}
