// `assetgen mock --json` in its own process, as a benchmark's service: load generated in one
// process is not served by the same event loop that makes it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/assetgen.js', import.meta.url));

/** Resolves with the mock's `{ url, apiKey, … }` (its first --json line) and a stop(). */
export function startExternalMock() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'mock', '--json', '--credits', '100000000'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      if (text.includes('\n')) resolve({ ...JSON.parse(text.split('\n')[0]), stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`mock exited ${code}`)));
  });
}
