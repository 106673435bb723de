'use strict';
// The monitoring service: GET <serviceUrlPrefix>/monitoring/isAlive answers `true` while the server runs, with the
// project's apiVersion (config.yml, which the mock server hands over as serviceDescriptor.config) in
// X-Application-API-Version.

function isAlive(request, response, serviceDescriptor) {
  response.statusCode = 200;
  // Set on the raw response: express's send() would append "; charset=utf-8" to the declared content type.
  response.setHeader('Content-Type', 'application/json');
  response.setHeader('X-Application-API-Version', String(serviceDescriptor.config.apiVersion));
  response.end('true\n');
}

module.exports = { isAlive };
