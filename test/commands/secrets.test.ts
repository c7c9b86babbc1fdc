// A password in the base URL is a secret like the key: it never reaches an error, a hint, a trace,
// --json, the journal or a printed command.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;

beforeAll(async () => {
  mock = await startMock({});
});
afterAll(async () => {
  await mock.close();
});
beforeEach(async () => {
  await mock.reset();
  await mock.config({ videoPollAfterMs: 20 });
  home = tempHome();
});
afterEach(() => home.remove());

function everythingWritten(): string {
  const files = fs.readdirSync(home.home, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return files.map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name)).toString('latin1')).join('\n');
}

describe('a base URL with a password', () => {
  it('is never printed, traced, journalled or put into a resume command', async () => {
    const baseUrl = mock.url.replace('http://', 'http://user:s3cret@');
    const env = { ...home.env, ASSETGEN_API_KEY: mock.apiKey };
    const outputs: string[] = [];
    for (const args of [
      ['generate', 'sword', '-a', 'sprite-artist', '--verbose'],
      ['video', 'create', 'torch', '--yes', '--no-wait', '--json'],
      ['video', 'create', 'torch', '--yes', '--interval', '20ms', '--json', '--timeout', '1ms'],
      ['jobs', '--json'],
      ['auth', 'status', '--json'],
    ]) {
      const result = await runInProcess([...args, '--base-url', baseUrl], { env, cwd: home.cwd });
      outputs.push(result.stdout, result.stderr);
    }
    await mock.config({ faults: { rate: 1, kinds: ['500'] } });
    const failed = await runInProcess(['workflows', 'list', '--base-url', baseUrl, '--verbose'], { env, cwd: home.cwd });
    expect(failed.code).toBe(1);
    outputs.push(failed.stdout, failed.stderr);
    expect(outputs.join('\n')).not.toContain('s3cret');
    expect(everythingWritten()).not.toContain('s3cret');
  });
});
