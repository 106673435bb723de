import { inboxPrefixSetting, RestbusError, topicPrefixSetting, type SettingSpec } from '@restbus/infra';
import type { GatewayConfig } from '../config';
import { escapeControlCharacters, findControlCharacter, MAX_SUBJECT_PREFIX_BYTES } from '@restbus/openapi';

/** `--topicPrefix / TOPIC_PREFIX`, as the configuration's own messages name a setting. */
function nameOf(setting: SettingSpec): string {
  const flag = /--[\w-]+/.exec(setting.flags)?.[0] ?? setting.key;
  return setting.env ? `${flag} / ${setting.env}` : flag;
}

function checkPrefix(value: string): string | undefined {
  const control = findControlCharacter(value);
  if (control) return `must not contain a control character, and holds ${control}`;
  const bytes = Buffer.byteLength(value);
  if (bytes > MAX_SUBJECT_PREFIX_BYTES) {
    return `must have at most ${MAX_SUBJECT_PREFIX_BYTES} bytes, and has ${bytes}: every subject and reply subject starts with it, and NATS reads them on one line of at most 4096 bytes`;
  }
  return undefined;
}

/**
 * The subject prefixes are checked as paths are (see subject-limits): their schema refuses whitespace and
 * wildcards, and this the rest of what would make nats-server drop the connection. CONFIG_INVALID (exit 2) names
 * the setting, as any other configuration problem.
 */
export function assertSubjectPrefixes(config: Pick<GatewayConfig, 'topicPrefix' | 'inboxPrefix'>): void {
  const problems: string[] = [];
  for (const [setting, value] of [
    [topicPrefixSetting, config.topicPrefix],
    [inboxPrefixSetting, config.inboxPrefix],
  ] as const) {
    const problem = checkPrefix(value);
    if (problem) {
      const shown = value.length > 64 ? `${JSON.stringify(value.slice(0, 64))}…` : JSON.stringify(value);
      problems.push(`${nameOf(setting)}: ${problem} (got ${escapeControlCharacters(shown)})`);
    }
  }
  if (problems.length > 0) throw new RestbusError('CONFIG_INVALID', `invalid configuration: ${problems.join('; ')}`);
}
