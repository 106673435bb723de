#!/usr/bin/env node
import { kvReplicasSetting, readPackageVersion, readsSetting, runExecutive, storeSetting } from '@restbus/infra';
import { registerPersons, type PersonServiceSettings } from './register-persons';

runExecutive<PersonServiceSettings>({
  name: 'person-service',
  version: readPackageVersion(__dirname),
  description: 'The person API: answers the request messages the gateway sends for person-api.yml',
  settings: [storeSetting, kvReplicasSetting, readsSetting],
  startups: [registerPersons],
});
