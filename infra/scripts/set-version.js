#!/usr/bin/env node
// Sets one version on the root and every workspace package, and pins the packages' dependencies on each other to
// it, so that the tarballs of one release always install together:   npm run release:version -- 0.2.0
'use strict';
const { execFileSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const root = resolve(__dirname, '../..');
const version = process.argv[2];
if (!version || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
  process.stderr.write('usage: npm run release:version -- <major.minor.patch[-pre]>\n');
  process.exit(2);
}

const readManifest = (dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
const writeManifest = (dir, manifest) =>
  writeFileSync(join(root, dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

const rootManifest = readManifest('.');
const workspaces = rootManifest.workspaces;
const names = new Set(workspaces.map((dir) => readManifest(dir).name));
writeManifest('.', { ...rootManifest, version });
for (const dir of workspaces) {
  const manifest = readManifest(dir);
  manifest.version = version;
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
    for (const name of Object.keys(manifest[field] ?? {})) if (names.has(name)) manifest[field][name] = version;
  }
  writeManifest(dir, manifest);
}
execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
process.stdout.write(`every package is at ${version}; review the diff, commit, then: npm run release\n`);
