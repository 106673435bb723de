// Moved to @restbus/openapi; re-exported until the gateway's other folders import it from there.
export {
  checkSubjectLength,
  findControlCharacter,
  MAX_SUBJECT_BYTES,
  MAX_SUBJECT_PREFIX_BYTES,
  NATS_MAX_CONTROL_LINE,
} from '@restbus/openapi';
