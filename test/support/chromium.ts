// Debian's chromium (or CHROMIUM_PATH) for tests that need a real browser, launched headless through
// playwright-core the way the gallery test does. Without it, such a suite is skipped and says so.
import fs from 'node:fs';
import type { Browser } from 'playwright-core';

const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM: string | undefined = fs.existsSync(path) ? path : undefined;

export function warnWithoutChromium(suite: string): void {
  if (!CHROMIUM) console.warn(`${suite} skipped: no chromium at ${path} (apt-get install chromium, or set CHROMIUM_PATH)`);
}

/** Headless, as root (no sandbox), and nothing reaching for the network on a closed machine. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 15_000 });
}
