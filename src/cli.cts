// The assetgen command line on the real process. `--version` is answered without loading anything;
// everything else goes through the command table (program.cts). CommonJS on purpose: Node starts a
// CJS entry faster than an ES module graph, and start-up is most of the time of `--help`. This is
// the only place that exits the process.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type * as Program from './program.cjs';

const version = (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
const args = process.argv.slice(2);

if (args.length === 1 && ['-V', '--version', '-v', 'version'].includes(args[0] ?? '')) {
  process.stdout.write(`${version}\n`);
} else {
  void main();
}

async function main(): Promise<void> {
  exitQuietlyOnBrokenPipe();
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
  process.exit(await built.run(args));
}

// A reader that went away (`assetgen --help | head -3`) is no reason for a stack trace: exit as a
// program killed by SIGPIPE would (128 + 13, EXIT.brokenPipe), which shells and pipefail understand.
function exitQuietlyOnBrokenPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(141);
      process.exitCode = 1;
    });
  }
}
