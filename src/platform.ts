// The platform assetgen behaves for, decided here and nowhere else: Windows' MCP config entries,
// its rename retries and its console signals, the config folders of each system. Tests set it
// (setPlatformForTesting) to check the Windows and macOS behaviours on any machine.
let forced: NodeJS.Platform | undefined;

/** The platform to behave for: process.platform, unless a test set another. */
export function platform(): NodeJS.Platform {
  return forced ?? process.platform;
}

export const isWindows = (): boolean => platform() === 'win32';

/** Tests only: behave as `value` until called again (undefined: the real platform). */
export function setPlatformForTesting(value: NodeJS.Platform | undefined): void {
  forced = value;
}

/**
 * The signals that end a run as Ctrl-C does (the command's abort: paid jobs recorded, the resume
 * line printed). Windows adds Ctrl+Break (SIGBREAK) and the console window closing (SIGHUP, after
 * which Windows ends the process within seconds). Elsewhere SIGHUP keeps its default (the process
 * ends, as kill would leave it: paid jobs are on disk before their wait): a handler would override
 * `nohup`, which sets SIGHUP to be ignored.
 */
export function interruptSignals(): NodeJS.Signals[] {
  return isWindows() ? ['SIGINT', 'SIGTERM', 'SIGBREAK', 'SIGHUP'] : ['SIGINT', 'SIGTERM'];
}
