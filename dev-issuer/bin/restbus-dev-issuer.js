#!/usr/bin/env node
// npm links bins at install time, before the build: this file exists then, the compiled program later.
require('../dist/main.js');
