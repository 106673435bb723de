#!/usr/bin/env node
import { kvReplicasSetting, readPackageVersion, readsSetting, runExecutive, storeSetting } from '@restbus/infra';
import { registerSystems, type SystemsServiceSettings } from './systems/register-systems';

runExecutive<SystemsServiceSettings>({
  name: 'systems-service',
  version: readPackageVersion(__dirname),
  description: 'The systems API: getSystems, postSystems, deleteSystems and getSystem over NATS',
  settings: [storeSetting, kvReplicasSetting, readsSetting],
  startups: [registerSystems],
});
