// A password in the base URL is a secret like the key: it never reaches an error, a hint, a trace,
// --json, the journal or a printed command.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ config: { videoPollAfterMs: 20 } });

function everythingWritten(): string {
  const files = fs.readdirSync(project.home.home, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return files.map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name)).toString('latin1')).join('\n');
}

describe('a base URL with a password', () => {
  it('is never printed, traced, journalled or put into a resume command', async () => {
    const baseUrl = project.mock.url.replace('http://', 'http://user:s3cret@');
    const env = { ...project.home.env, ASSETGEN_API_KEY: project.mock.apiKey };
    const outputs: string[] = [];
    for (const args of [
      ['generate', 'sword', '-a', 'sprite-artist', '--verbose'],
      ['video', 'create', 'torch', '--yes', '--no-wait', '--json'],
      ['video', 'create', 'torch', '--yes', '--interval', '20ms', '--json', '--timeout', '1ms'],
      ['jobs', '--json'],
      ['auth', 'status', '--json'],
    ]) {
      const result = await project.run([...args, '--base-url', baseUrl], { env });
      outputs.push(result.stdout, result.stderr);
    }
    await project.mock.config({ faults: { rate: 1, kinds: ['500'] } });
    const failed = await project.run(['workflows', 'list', '--base-url', baseUrl, '--verbose'], { env });
    expect(failed.code).toBe(1);
    outputs.push(failed.stdout, failed.stderr);
    expect(outputs.join('\n')).not.toContain('s3cret');
    expect(everythingWritten()).not.toContain('s3cret');
  });
});
