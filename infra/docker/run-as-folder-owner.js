#!/usr/bin/env node
'use strict';
// Container entry for tools that write into a mounted folder (rest-tool): when started as root, it takes the
// user and group that own the working directory (the mounted folder, so the person who ran `docker compose run`)
// before it loads the program. Files it creates are then theirs, not root's, with no UID to pass in.
// Usage: node run-as-folder-owner.js <program.js> [args...]
const fs = require('node:fs');
const path = require('node:path');

const [program, ...args] = process.argv.slice(2);
if (!program) {
  process.stderr.write('usage: run-as-folder-owner <program.js> [args...]\n');
  process.exit(2);
}
if (typeof process.getuid === 'function' && process.getuid() === 0) {
  const { uid, gid } = fs.statSync(process.cwd());
  if (uid !== 0) {
    process.setgroups([gid]);
    process.setgid(gid);
    process.setuid(uid);
    // The folder owner has no home in the image; npm and friends want a writable one.
    process.env.HOME = '/tmp';
  }
}
process.argv = [process.argv[0], path.resolve(program), ...args];
require(path.resolve(program));
