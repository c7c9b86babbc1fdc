// The assetgen command line on the real process. `--version` alone is answered without loading anything
// (with --json, the command table answers: the document of `assetgen version --json`),
// a plain help request from the help screens rendered at build time (cli/help-screens.cts);
// everything else goes through the command table (program.cts). CommonJS on purpose: Node starts a
// CJS entry faster than an ES module graph, and start-up is most of the time of `--help`. This is
// the only place that ends the process: it sets the exit code and lets the output drain.
import type * as HelpScreens from './cli/help-screens.cjs';
import type * as Labels from './ui/labels.cjs';
import { packageVersion } from './package-info.cjs';
import type * as Program from './program.cjs';

const version = packageVersion();
// `-v` is `-V` among the options before a command (commander takes one short flag per option, and
// `-v` alone is answered below): `assetgen -v --json` is the version document, as `-V --json` is.
const firstCommand = process.argv.slice(2).findIndex((arg) => !arg.startsWith('-'));
const args = process.argv.slice(2).map((arg, i) => (arg === '-v' && (firstCommand === -1 || i < firstCommand) ? '-V' : arg));

// Before anything is written, on every path: `assetgen --version | true` exits 141 like the rest.
exitQuietlyOnBrokenPipe();

if (args.length === 1 && ['-V', '--version', 'version'].includes(args[0] ?? '')) {
  process.stdout.write(`${version}\n`);
} else if (!answeredHelp()) {
  void main();
}

/** A plain help request, answered from the screens rendered at build time (exit 0 once drained). */
function answeredHelp(): boolean {
  // Only a command line naming help reads the screens; the rest never loads that module.
  if (!args.some((arg) => arg === '--help' || arg === '-h' || arg === 'help')) return false;
  /* eslint-disable-next-line @typescript-eslint/no-require-imports */
  const { precomputedHelp } = require('./cli/help-screens.cjs') as typeof HelpScreens;
  const text = precomputedHelp(args, process.stdout);
  if (text === undefined) return false;
  process.stdout.write(text);
  return true;
}

async function main(): Promise<void> {
  // require, not import(): both are CommonJS, and require is the fast path for them.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { buildProgram, executeIn } = require('./program.cjs') as typeof Program;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const built = buildProgram({
    version,
    execute: executeIn(),
    writeOut: (text) => void process.stdout.write(text),
    writeErr: (text) => void process.stderr.write(text),
  });
  const code = await built.run(args);
  // A success does not hide an output stream that failed meanwhile (exit 1, set below).
  if (code !== 0 || process.exitCode === undefined) process.exitCode = code;
  await endWhenDrained(args.includes('--verbose'));
}

/** How long the process may live on once the command has ended and its output has drained. */
const EXIT_GRACE_MS = 2000;

/**
 * The process ends on its own once the event loop is empty: never by process.exit right after a
 * write, which drops what a pipe has not taken yet (a 383 KB --json arrived as 64 KiB, exit 0).
 * Once stdout and stderr have drained, an unref'd timer is the safety net: should a handle be left
 * open (a bug), it exits with the exit code set after a short grace instead of hanging, and with
 * --verbose names what was still open.
 */
async function endWhenDrained(verbose: boolean): Promise<void> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  setTimeout(() => {
    if (verbose) {
      const open = process.getActiveResourcesInfo().join(', ');
      // Loaded here only: the entry stays tiny (`--version` compiles nothing more).
      /* eslint-disable-next-line @typescript-eslint/no-require-imports */
      const { warningLine } = require('./ui/labels.cjs') as typeof Labels;
      process.stderr.write(`${warningLine(`still open ${EXIT_GRACE_MS} ms after the command ended (${open}); exiting.`)}\n`);
    }
    process.exit();
  }, EXIT_GRACE_MS).unref();
}

/** Resolves once everything written to `stream` so far has been handed to the OS (or failed). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  // Writes complete in order: the callback of an empty write runs after the ones queued before it.
  return new Promise((resolve) => stream.write('', () => resolve()));
}

// A reader that went away (`assetgen --help | head -3`) is no reason for a stack trace: exit as a
// program killed by SIGPIPE would (128 + 13, EXIT.brokenPipe), which shells and pipefail understand.
// Installed first thing (above), as a write into a closed pipe fails on whichever path made it.
function exitQuietlyOnBrokenPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(141);
      process.exitCode = 1;
    });
  }
}
