// Planning 10,000 up-to-date assets, split: a row per factor of `assetgen build --dry-run --json`,
// each timed on its own (wall and CPU of its own step) in a fresh process per round, the steps in
// the order a dry run takes them but one after the other (the dry run overlaps hashing with the
// manifest on a worker thread: its wall is about the sum below less the shorter of those two).
// bench/build.mjs runs it on its built project (`splitPlan`); the child mode is this file run as
// `node bench/plan-split.mjs --child <service>` in the project directory, printing one JSON line.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

/** The factors, in the order the child measures them: [key, what the row says]. */
const FACTORS = [
  ['start', '`node` itself starting (a fresh `node -e 0`; not in the sum: every figure below runs after it)'],
  ['tableModule', 'loading the table module (string-width, for people’s view; a --json dry run loads it unused)'],
  ['modules', "loading the dry run's other modules (the command, pipeline, yaml)"],
  ['manifest', 'reading and checking the manifest (the plain reader, then validation)'],
  ['lock', 'reading the lock (JSON.parse and its checks)'],
  ['hash', "hashing the lock's files on the main thread (open, fstat, read, close, sha256)"],
  ['hashWorker', 'the same hashing on a worker thread, from its start to its answer (alone: nothing overlapping)'],
  ['plan', 'planning (specs hashed, files checked, ownership)'],
  ['json', 'the --json document (items without `asset`, serialised, written to /dev/null)'],
];

async function child(service) {
  const cpu = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const times = {};
  let wall = performance.now();
  let used = cpu();
  const lap = (key) => {
    const [nowWall, nowCpu] = [performance.now(), cpu()];
    times[key] = { wallMs: nowWall - wall, cpuMs: nowCpu - used };
    [wall, used] = [nowWall, nowCpu];
  };
  const load = (file) => import(pathToFileURL(path.join(DIST, file)).href);
  await import('string-width');
  lap('tableModule');
  await load('commands/project/build.js');
  const { loadManifest, locateManifest } = await load('pipeline/manifest.js');
  const { lockFileFor, readLock } = await load('pipeline/lock.js');
  const { hashProjectFiles, planBuild } = await load('pipeline/plan.js');
  const { preloadHashes } = await load('pipeline/hash-preload.js');
  const { terminalSafeJson } = await load('ui/sanitize.js');
  lap('modules');
  const file = locateManifest(process.cwd());
  const manifest = loadManifest(file, process.cwd());
  lap('manifest');
  const lock = readLock(lockFileFor(file));
  lap('lock');
  const hashes = await hashProjectFiles(manifest, lock);
  lap('hash');
  const preload = preloadHashes(manifest.root, lock);
  if (preload) await preload.hashes();
  lap('hashWorker');
  // Fewer files than a thread is worth: the dry run starts none, and there is no row for it.
  if (!preload) delete times.hashWorker;
  const plan = planBuild(manifest, lock, hashes, { service });
  lap('plan');
  const items = plan.items.map(({ asset, ...rest }) => ({
    ...rest,
    out: asset.out.type === 'file' ? asset.out.path : `${asset.out.dir}/`,
  }));
  fs.writeFileSync('/dev/null', `${terminalSafeJson({ items }, 2)}\n`);
  lap('json');
  process.stdout.write(`${JSON.stringify(times)}\n`);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Rows for bench/build.mjs: `project` holds a built manifest and its lock, `service` the spec's
 * service part (the configured URL's host). `rounds` fresh processes, each step's median.
 */
export function splitPlan(project, service, env, rounds) {
  const runs = [];
  const starts = [];
  for (let round = 0; round < rounds; round++) {
    const begun = performance.now();
    const bare = spawnSync(process.execPath, ['-e', 'const u = process.cpuUsage(); console.log((u.user + u.system) / 1000)'], {
      encoding: 'utf8',
    });
    starts.push({ wallMs: performance.now() - begun, cpuMs: Number(bare.stdout) });
    const result = spawnSync(process.execPath, [SELF, '--child', service], { cwd: project, env, encoding: 'utf8', maxBuffer: 1 << 24 });
    if (result.status !== 0) throw new Error(`plan-split child exited ${result.status}: ${result.stderr}`);
    runs.push(JSON.parse(result.stdout));
  }
  const figure = (key, field) => median(key === 'start' ? starts.map((s) => s[field]) : runs.map((run) => run[key][field]));
  const summed = ['tableModule', 'modules', 'manifest', 'lock', 'hash', 'plan', 'json'];
  const total = summed.reduce((sum, key) => sum + figure(key, 'wallMs'), 0);
  return FACTORS.filter(([key]) => key === 'start' || runs.every((run) => run[key])).map(([key, what]) => ({
    figure: `split: ${what} (median of ${rounds})`,
    measured: `${figure(key, 'wallMs').toFixed(0)} ms (CPU ${figure(key, 'cpuMs').toFixed(0)} ms)`,
    baseline: `the steps' sum, ${total.toFixed(0)} ms`,
    ratio: figure(key, 'wallMs') / total,
    goal: 'reference',
    met: undefined,
  }));
}

if (process.argv[2] === '--child') await child(process.argv[3]);
