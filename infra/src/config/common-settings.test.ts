import { topicPrefixSetting } from './common-settings';
import { loadConfig } from './load-config';

const load = (topicPrefix: string) =>
  loadConfig<{ topicPrefix: string }>(
    { name: 'demo', version: '0', description: 'demo', settings: [topicPrefixSetting] },
    { argv: ['--topicPrefix', topicPrefix], env: {} },
  );

describe('the topic prefix setting', () => {
  it.each(['easer', 'person-demo', 'org.team'])('accepts "%s"', (prefix) => {
    expect(load(prefix).topicPrefix).toBe(prefix);
  });

  it.each(['*', 'a.>', 'two words', 'a..b', '.a'])(
    'refuses "%s", which would not be a safe subject prefix',
    (prefix) => {
      expect(() => load(prefix)).toThrow(/--topicPrefix \/ TOPIC_PREFIX: must match pattern/);
    },
  );
});
