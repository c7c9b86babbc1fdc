// A job on the in-process bundled mock (--mock) lives in that mock, which ends with the command:
// no later command reaches it (`--mock` starts a fresh one, and without it the configured service
// knows no such job). So an interrupted or timed-out wait there names the job, says nothing was
// charged for real, and prints no resume command (`"resume": null` in --json).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonError, runInProcess, tempHome, type CliResult } from '../support/cli.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

/** `assetgen <args> --mock` with no service configured, Ctrl-C the moment `paidFor` is on stderr. */
function interruptedWhen(paidFor: string, args: string[]): Promise<CliResult> {
  const controller = new AbortController();
  return runInProcess([...args, '--mock'], {
    env: home.env,
    cwd: home.cwd,
    interrupt: controller.signal,
    onStderr: (text) => {
      if (text.includes(paidFor)) controller.abort();
    },
  });
}

/** What every ending of a wait on the mock says instead of a resume command. */
function expectEndedWithMock(result: CliResult, kind: 'video job' | 'run'): void {
  expect(result.stderr).toMatch(
    new RegExp(
      `The ${kind} \\w+ is on the bundled mock \\(--mock\\), which ends with this command: nothing was charged for real, and there is nothing to resume\\.`,
    ),
  );
  expect(result.stderr).not.toContain('resume with');
  expect(result.stderr).not.toContain('goes on without us');
  expect(result.stderr).not.toMatch(/assetgen (video|runs) wait/);
}

describe('a paid job on the in-process mock has nothing to resume', () => {
  it('Ctrl-C during a video wait: exit 130, the job named with "resume": null, no resume command', async () => {
    const result = await interruptedWhen('Submitted video job', ['video', 'create', 'torch', '--yes', '--interval', '30s', '--json']);
    expect(result.code, result.stderr).toBe(130);
    const error = jsonError(result);
    expect(error.job).toEqual({ id: expect.stringMatching(/^vid_/), kind: 'video', resume: null });
    expect(error.hint).toContain(`The video job ${error.job.id} is on the bundled mock (--mock)`);
    expectEndedWithMock(result, 'video job');
  });

  it('Ctrl-C during a run: exit 130, said for people, no `runs wait` command', async () => {
    const result = await interruptedWhen('Started run', ['workflows', 'run', 'wf_tileset', '-o', 'tiles']);
    expect(result.code, result.stderr).toBe(130);
    expectEndedWithMock(result, 'run');
  });

  it('--timeout during a video wait: exit 7, "resume": null, no resume command', async () => {
    // --timeout runs out the moment the job is submitted (`timeoutWhen`): in the 30 s wait.
    const runOut = new AbortController();
    const result = await runInProcess(['video', 'create', 'torch', '--yes', '--interval', '30s', '--timeout', '2s', '--mock', '--json'], {
      env: home.env,
      cwd: home.cwd,
      timeoutWhen: runOut.signal,
      onStderr: (text) => {
        if (text.includes('Submitted video job')) runOut.abort();
      },
    });
    expect(result.code, result.stderr).toBe(7);
    const error = jsonError(result);
    expect(error.job).toEqual({ id: expect.stringMatching(/^vid_/), kind: 'video', resume: null });
    expectEndedWithMock(result, 'video job');
  });
});
