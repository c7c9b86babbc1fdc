// What a test needs from the system it runs on, decided through the platform module
// (src/platform.ts), and saying why a test that cannot run here is skipped (CI runs every OS).
import { isWindows } from '../../src/platform.js';

/** Signals a test sends a child (SIGINT, SIGTERM) reach its handlers: not on Windows, where kill ends it outright. */
export const CAN_SIGNAL_CHILDREN = !isWindows();

/** FIFOs (mkfifo) exist: not on Windows. */
export const HAS_FIFOS = !isWindows();

/** True when the suite can run here; else says on stderr why it is skipped. */
export function runsHere(suite: string, possible: boolean, why: string): boolean {
  if (!possible) console.warn(`${suite} skipped on ${process.platform}: ${why}`);
  return possible;
}
