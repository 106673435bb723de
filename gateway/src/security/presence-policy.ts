import { refuseRequest } from '@restbus/infra';
import type { ApiEndpoint } from '../openapi/endpoint';
import type { CallPolicy, PolicyCall } from './call-policy';
import { findUnmetSecurity } from './find-unmet-security';

/**
 * `--auth presence`: a call of a secured operation must carry credentials of a requirement, as Prism checks them
 * (present, not valid): what `-m` does by default, and what lets a mock stand in for a secured API.
 */
export class PresencePolicy implements CallPolicy {
  constructor(private readonly endpoint: ApiEndpoint) {}

  async admit(call: PolicyCall): Promise<void> {
    const challenges = findUnmetSecurity(this.endpoint, { headers: call.req.headers, query: call.query });
    if (!challenges) return;
    throw refuseRequest('credentialsMissing', 'the operation needs credentials the request does not carry', {
      headers: { 'www-authenticate': challenges },
    });
  }
}
