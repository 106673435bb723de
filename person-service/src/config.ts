import {
  logLevelSetting,
  natsUriSetting,
  readPackageVersion,
  topicPrefixSetting,
  type ProgramSpec,
} from '@restbus/infra';

export interface PersonServiceConfig {
  natsUri: string;
  topicPrefix: string;
  logLevel: string;
}

export const personServiceProgram: ProgramSpec = {
  name: 'person-service',
  version: readPackageVersion(__dirname),
  description: 'Answers the person API request messages that the gateway sends over NATS.',
  settings: [natsUriSetting, topicPrefixSetting, logLevelSetting],
};
