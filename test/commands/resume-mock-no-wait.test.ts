// `--no-wait` on the in-process bundled mock (--mock): the job ends with the mock when the command
// does, so there is nothing to wait for later. No "Wait for it with"/"Follow it with" line, and
// `"resume": null` in --json (the job's id kept).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson, runInProcess, tempHome } from '../support/cli.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const run = (args: string[]) => runInProcess([...args, '--mock'], { env: home.env, cwd: home.cwd });

describe('--no-wait on the in-process mock', () => {
  it('video create: no command to wait with, "resume": null, the id kept', async () => {
    const result = await run(['video', 'create', 'torch', '--yes', '--no-wait', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const document = parseJson(result);
    expect(document.job).toEqual({ id: expect.stringMatching(/^vid_/), kind: 'video', resume: null });
    expect(document.mock).toBe(true);
    expect(result.stderr).not.toContain('Wait for it with');
    expect(result.stderr).not.toContain('video wait');
    expect(result.stderr).toContain(
      `The video job ${document.job.id} is on the bundled mock (--mock), which ends with this command: nothing was charged for real, and there is nothing to resume.`,
    );
  });

  it('workflows run: no "Follow it with" line for people, the run id on stdout', async () => {
    const result = await run(['workflows', 'run', 'wf_tileset', '--no-wait']);
    expect(result.code, result.stderr).toBe(0);
    const id = result.stdout.trim();
    expect(id).toMatch(/^run_/);
    expect(result.stderr).not.toContain('Follow it with');
    expect(result.stderr).not.toContain('runs wait');
    expect(result.stderr).toContain(`The run ${id} is on the bundled mock (--mock)`);
  });
});
