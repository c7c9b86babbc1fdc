// `assetgen build` as real processes against one real mock: a 20-asset manifest (images, workflows,
// videos) built and charged once each; four `--shard k/4` processes at once, then `lock merge`;
// and `kill -9` at 10 moments of a build, rerun until done, never paying twice for an asset.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOST_TAG, writerOf } from '../../src/files/temp-files.js';
import { readLock } from '../../src/pipeline/lock.js';
import { runCli, spawnCli } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

/** 14 images (files and folders), 3 workflows, 3 videos. */
function manifest(): string {
  const lines = ['defaults: { agent: sprite-artist, out: assets/ }', 'assets:'];
  for (let i = 1; i <= 14; i++)
    lines.push(`  - id: icon-${i}`, `    prompt: icon number ${i}`, ...(i % 2 ? [`    out: assets/icons/icon-${i}.png`] : []));
  for (let i = 1; i <= 3; i++)
    lines.push(`  - id: tiles-${i}`, '    workflow: wf_tileset', `    set: { theme: "cave ${i}" }`, '    out: assets/tiles/');
  for (let i = 1; i <= 3; i++) lines.push(`  - id: fx-${i}`, `    video: torch flickering ${i}`, '    out: assets/fx/');
  return `${lines.join('\n')}\n`;
}
const IDS = [...Array.from({ length: 14 }, (_, i) => `icon-${i + 1}`), 'tiles-1', 'tiles-2', 'tiles-3', 'fx-1', 'fx-2', 'fx-3'];

const project = useMockProject({
  mock: { credits: 1_000_000 },
  config: { credits: 1_000_000, videoPollAfterMs: 50, videoSteps: 3, faults: { rate: 0 } },
  files: { 'assetgen.yaml': manifest() },
});
const build = (args: string[]) => runCli(['build', '--yes', ...args], { env: project.env(), cwd: project.cwd });

/** Paid submissions in the mock's ledger, by kind (polls and downloads excluded). */
async function submissions(): Promise<{ images: number; runs: number; videos: number }> {
  const reasons = (await project.ledger()).filter((e) => e.amount < 0).map((e) => e.reason);
  return {
    images: reasons.filter((r) => r.startsWith('generate ')).length,
    runs: reasons.filter((r) => r.startsWith('run ')).length,
    videos: reasons.filter((r) => r.startsWith('video ')).length,
  };
}

function expectAllBuilt(lockFile = path.join(project.cwd, 'assetgen.lock')): void {
  const lock = readLock(lockFile);
  expect(Object.keys(lock.assets).sort()).toEqual([...IDS].sort());
  for (const [id, entry] of Object.entries(lock.assets)) {
    expect(entry.job, id).toBeUndefined();
    expect(entry.files.length, id).toBeGreaterThan(0);
    for (const file of entry.files) expect(fs.statSync(path.join(project.cwd, file.path)).size, file.path).toBe(file.size);
  }
}

/** Temp names of earlier assetgen versions: a save's, a whole-file write's, the claim's draft. */
const OLD_TEMP_NAMES = [/^\..+\.[0-9a-f]{12}\.assetgen$/, /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/, /^\.assetgen\.lock\.writer\.\d+\.tmp$/];

/** assetgen's temp files anywhere in the project (src/files/temp-files.ts names them; older forms too). */
const tempFiles = (): string[] =>
  fs
    .readdirSync(project.cwd, { recursive: true, encoding: 'utf8' })
    .filter((file) => writerOf(path.basename(file)) !== undefined || OLD_TEMP_NAMES.some((name) => name.test(path.basename(file))))
    .sort();

describe('assetgen build at scale (real processes)', () => {
  it('builds a 20-asset manifest, each charged once; the next build pays nothing', async () => {
    const first = await build(['-j', '8']);
    expect(first.code, first.stderr).toBe(0);
    expectAllBuilt();
    expect(await submissions()).toEqual({ images: 14, runs: 3, videos: 3 });
    const again = await build([]);
    expect(again.code, again.stderr).toBe(0);
    expect(await submissions()).toEqual({ images: 14, runs: 3, videos: 3 });
  }, 120_000);

  it('four --shard k/4 processes at once, each with its own --lock-out, then lock merge: every asset once', async () => {
    const shards = await Promise.all([1, 2, 3, 4].map((k) => build(['--shard', `${k}/4`, '--lock-out', `shard-${k}.lock`, '-j', '4'])));
    for (const shard of shards) expect(shard.code, shard.stderr).toBe(0);
    expect(await submissions()).toEqual({ images: 14, runs: 3, videos: 3 });
    const merged = await runCli(['lock', 'merge', 'shard-1.lock', 'shard-2.lock', 'shard-3.lock', 'shard-4.lock'], {
      env: project.env(),
      cwd: project.cwd,
    });
    expect(merged.code, merged.stderr).toBe(0);
    expectAllBuilt();
    expect((await build([])).code).toBe(0);
    expect(await submissions()).toEqual({ images: 14, runs: 3, videos: 3 });
  }, 180_000);

  it('kill -9 at 10 moments of a build, rerun until done: every asset present, charged once, the lock valid', async () => {
    await project.mock.config({ latencyMs: 15, videoSteps: 4, videoPollAfterMs: 60 });
    // Kill points spread over the build: the first 150 ms after it claimed the lock (its start-up,
    // slow on a loaded machine, does not count), each rerun a little later.
    let killedWithPaidWorkInFlight = 0;
    const claimFile = path.join(project.cwd, '.assetgen.lock.writer');
    for (let round = 0; round < 10; round++) {
      const child = spawnCli(['build', '--yes', '-j', '4'], { env: project.env(), cwd: project.cwd });
      let running = true;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve(void (running = false))));
      // Bounded: 30 s at most for the claim (a dead build's claim is taken over: its pid is in it).
      const claimedByThisBuild = (): boolean => {
        try {
          return fs.readFileSync(claimFile, 'utf8').includes(`"pid":${child.pid},`);
        } catch {
          return false;
        }
      };
      for (let look = 0; look < 1200 && running && !claimedByThisBuild(); look++) await new Promise((resolve) => setTimeout(resolve, 25));
      await new Promise((resolve) => setTimeout(resolve, 150 + round * 60));
      child.kill('SIGKILL');
      await exited;
      // A process killed while holding the lock's claim leaves it behind: the next build takes over
      // a dead process's claim (writer.ts), as a CI rerun would.
      const lockFile = path.join(project.cwd, 'assetgen.lock');
      const lock = readLock(lockFile); // the lock and its journal replayed: parses, never half-written
      if (Object.values(lock.assets).some((entry) => entry.job)) killedWithPaidWorkInFlight++;
    }
    // The series is only a test if some kills struck while paid jobs were in flight.
    expect(killedWithPaidWorkInFlight).toBeGreaterThan(0);
    // Saves cut by the kills leave temp files (some rounds do, by chance); one is planted besides,
    // as a killed writer leaves it (its pid gone), in a folder the next build may write nothing into,
    // and beside it a file of another name that only looks like one, which must stay.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    fs.mkdirSync(path.join(project.cwd, 'assets', 'icons'), { recursive: true });
    const planted = path.join('assets', 'icons', `.icon-1.png.${HOST_TAG}-${gone}-1.0123abcd.assetgen`);
    fs.writeFileSync(path.join(project.cwd, planted), 'cut short');
    fs.writeFileSync(path.join(project.cwd, 'assets', '.notes.0123abcd.assetgen'), 'not a temp file of ours');
    const leftByKills = tempFiles().length - 1;
    let last = await build(['-j', '4']);
    for (let attempt = 0; attempt < 3 && last.code !== 0; attempt++) last = await build(['-j', '4']);
    expect(last.code, last.stderr).toBe(0);
    expectAllBuilt();
    expect(await submissions()).toEqual({ images: 14, runs: 3, videos: 3 });
    // The next build removed every temp file of a dead writer (the kills' and the planted one), and nothing else.
    expect(tempFiles(), `${leftByKills} left by the kills`).toEqual([]);
    expect(fs.existsSync(path.join(project.cwd, 'assets', '.notes.0123abcd.assetgen'))).toBe(true);
  }, 240_000);
});
