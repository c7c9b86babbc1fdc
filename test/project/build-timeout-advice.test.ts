// A build stopped by --timeout (or Ctrl-C) while its video's poll is out says how a build resumes
// (`assetgen build` again: the lock has the job), not the advice of one stopped call: no
// `--idempotency-key` (build has no such flag) and no `video wait` (it saves a file the lock does
// not know, and pays a poll the next build pays again).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonError } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({ mock: { credits: 1_000 }, config: { credits: 1_000 } });

describe('build --timeout while a job is followed', () => {
  it('exit 7, the build’s own resume advice, no single-call advice', async () => {
    fs.writeFileSync(
      path.join(project.cwd, 'assetgen.yaml'),
      'defaults: { agent: icon-forge, out: assets/ }\nassets:\n  - { id: a1, prompt: x1 }\n  - { id: v1, video: a torch, out: assets/fx/ }\n',
    );
    await project.mock.hold(['getVideo']);
    // --timeout runs out once the video's poll is held (`timeoutWhen`), and that poll gets 0.1 s
    // to answer (5 s in a real build): the advice is the build's.
    const runOut = new AbortController();
    const running = project.run(['build', '--yes', '--timeout', '1s', '--json'], { timeoutWhen: runOut.signal, answerGraceMs: 100 });
    await until('the poll held', async () => ((await project.mock.state()).held as number) >= 1);
    runOut.abort();
    const result = await running;
    await project.mock.hold([]);
    expect(result.code, result.stderr).toBe(7);
    const error = jsonError(result);
    expect(error.hint).toMatch(/^Paid jobs are recorded in assetgen\.lock: run the same `assetgen build` again to resume them/);
    expect(JSON.stringify(error)).not.toMatch(/--idempotency-key|video wait/);
    expect(error.job).toBeUndefined();
  });
});
