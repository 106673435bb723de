import { toTopic } from '../wire/topic';
import type { ContractOperation } from './contract';

/** The subject the gateway sends an operation's calls to: its `x-restbus-subject`, else `<prefix>.<method>_<path>`. */
export function toOperationSubject(topicPrefix: string, operation: ContractOperation): string {
  return operation.subjectOverride ?? toTopic(topicPrefix, operation.method, operation.path);
}
