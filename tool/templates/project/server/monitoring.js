'use strict';
// The monitoring service: GET <serviceUrlPrefix>/monitoring/isAlive answers `true` while the server runs, with the
// project's apiVersion (config.yml) in X-Application-API-Version.
const fs = require('node:fs');
const path = require('node:path');

const configFile = path.join(__dirname, '..', 'config.yml');
let cached = { at: 0, version: undefined };

/** The top-level `apiVersion:` of config.yml, plain or quoted; read again at most once a second. */
function readApiVersion() {
  if (Date.now() - cached.at < 1000) return cached.version;
  let version;
  try {
    const line = /^apiVersion:[ \t]*(.*)$/m.exec(fs.readFileSync(configFile, 'utf8'));
    const value = line ? line[1].replace(/[ \t]+#.*$/, '').trim() : '';
    if (/^".*"$/.test(value)) version = JSON.parse(value);
    else if (/^'.*'$/.test(value)) version = value.slice(1, -1).replace(/''/g, "'");
    else version = value || undefined;
  } catch {
    version = undefined;
  }
  cached = { at: Date.now(), version };
  return version;
}

function isAlive(request, response, serviceDescriptor) {
  const version =
    (serviceDescriptor && serviceDescriptor.config && serviceDescriptor.config.apiVersion) || readApiVersion();
  response.statusCode = 200;
  // Set on the raw response: express's send() would append "; charset=utf-8" to the declared content type.
  response.setHeader('Content-Type', 'application/json');
  if (version !== undefined) response.setHeader('X-Application-API-Version', String(version));
  response.end('true\n');
}

module.exports = { isAlive };
