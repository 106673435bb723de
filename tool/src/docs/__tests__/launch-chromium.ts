import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/** Where the browser tests leave their screenshots, to be looked at. */
export const ARTIFACTS = resolve(__dirname, '..', '..', '..', 'test-artifacts');

/** Debian's Chromium, headless. A missing browser fails the test with how to get it; it is never skipped. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)`);
  }
  return chromium.launch({ executablePath: CHROMIUM });
}
