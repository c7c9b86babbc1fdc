// With --json, every failure — commander's usage errors included — ends with one JSON line on
// stderr carrying the documented exit code, and stdout stays empty.
import { describe, expect, it } from 'vitest';
import { jsonError, type CliResult, type CliOptions } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ config: { videoPollAfterMs: 20 } });

function expectJsonFailure(result: CliResult, exitCode: number, code?: string): Record<string, any> {
  expect(result.code, result.stderr).toBe(exitCode);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  const error = jsonError(result);
  expect(error.exitCode).toBe(exitCode);
  expect(typeof error.message).toBe('string');
  if (code) expect(error.code).toBe(code);
  // Nothing but the JSON line from the failure itself (progress may precede it without -q).
  expect(lines.at(-1)!.startsWith('{"error":')).toBe(true);
  return error;
}

describe('--json errors', () => {
  const cli = (args: string[], options: Partial<CliOptions> = {}) => project.run([...args, '--json', '-q'], options);

  it('2: unknown commands, unknown options, missing required options, bad values', async () => {
    for (const args of [
      ['frobnicate'],
      ['generate', 'x', '-a', 'sprite-artist', '--bogus'],
      ['generate', 'x'],
      ['jobs', '-n', 'zero'],
      ['mock', '--port', '99999'],
    ]) {
      const error = expectJsonFailure(await cli(args), 2, 'usage');
      expect(error.message).not.toMatch(/^error:/);
    }
    expect(expectJsonFailure(await cli(['video', 'create', 'torch']), 2, 'usage').message).toContain('--yes');
  });

  it('without --json, commander\'s usage errors read like assetgen\'s own: "error: …", exit 2', async () => {
    for (const args of [
      ['frobnicate'],
      ['generate', 'x', '-a', 'sprite-artist', '--bogus'],
      ['generate', 'x'],
      ['build', '--shard', 'x'],
    ]) {
      const result = await project.run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^error: \S/);
    }
  });

  it('4: no credentials', async () => {
    expectJsonFailure(await cli(['generate', 'x', '-a', 'sprite-artist'], { env: project.home.env }), 4, 'missing_credentials');
  });

  it('5: not enough credits', async () => {
    await project.mock.config({ credits: 0 });
    const error = expectJsonFailure(await cli(['generate', 'x', '-a', 'sprite-artist']), 5);
    expect(error).toMatchObject({ status: 402 });
  });

  it('6: the job failed', async () => {
    await project.mock.config({ videoOutcome: 'fail' });
    expectJsonFailure(await cli(['video', 'create', 'doomed', '--yes', '--interval', '20ms']), 6, 'job_failed');
  });

  it('7: --timeout', async () => {
    await project.mock.config({ videoSteps: 1000 });
    expectJsonFailure(await cli(['video', 'create', 'endless', '--yes', '--interval', '20ms', '--timeout', '200ms']), 7, 'timeout');
  });

  it('7: --timeout run out by the test before the command starts (timeoutWhen already aborted): at once, not after 60 s', async () => {
    await project.mock.config({ videoSteps: 1000 });
    const result = await cli(['video', 'create', 'endless', '--yes', '--interval', '20ms', '--timeout', '60s'], {
      timeoutWhen: AbortSignal.abort(),
    });
    expectJsonFailure(result, 7, 'timeout');
  });

  it('130: interrupted', async () => {
    await project.mock.config({ videoSteps: 1000 });
    const controller = new AbortController();
    const result = await project.run(['video', 'create', 'endless', '--yes', '--interval', '20ms', '--json'], {
      interrupt: controller.signal,
      onStderr: (text) => text.includes('Submitted') && controller.abort(),
    });
    expectJsonFailure(result, 130, 'interrupted');
  });

  it('1: a server error', async () => {
    await project.mock.config({ faults: { rate: 1, kinds: ['500'] } });
    expectJsonFailure(await cli(['workflows', 'list']), 1);
  });
});
