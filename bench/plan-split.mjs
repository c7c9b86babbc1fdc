// Planning 10,000 up-to-date assets, split: a row per factor of `assetgen build --dry-run --json`,
// each timed on its own (wall and CPU of its own step) in a fresh process per round, the steps in
// the order a dry run takes them but one after the other (the dry run overlaps hashing with the
// manifest on a worker thread: its wall is about the sum below less the shorter of those two).
// Then the same project with a warm plan cache (.assetgen/cache/, which the dry runs before made):
// its steps replace reading the manifest and the lock and hashing (stat'ing the files instead, on
// a worker thread while the lock is read).
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
  ['tableModule', 'loading string-width (display widths, for a table on a terminal only: not in a --json dry run, nor in the sums)'],
  ['modules', "loading the dry run's other modules (the command, pipeline, yaml)"],
  ['manifest', 'no cache: reading and checking the manifest (the plain reader, then validation)'],
  ['lock', 'no cache: reading the lock (JSON.parse and its checks)'],
  ['hash', "no cache: hashing the lock's files on the main thread (open, fstat, read, close, sha256)"],
  ['hashWorker', 'no cache: the same hashing on a worker thread, from its start to its answer (alone: nothing overlapping)'],
  ['cacheOpen', 'warm cache: reading and authenticating its record of files (.assetgen/cache/files.bin; the user key read)'],
  ['manifestCached', 'warm cache: the manifest read, its text hashed, its validated assets read from the cache'],
  ['lockCached', 'warm cache: the lock read, its bytes hashed, JSON.parse without the checks its hash vouches for'],
  ['stamps', "warm cache: the lock's files stat'ed and compared with their recorded signatures, on the main thread"],
  [
    'stampsWorker',
    'warm cache: the same shared with a worker thread (each takes chunks), from its start to its answer (alone: nothing overlapping)',
  ],
  ['plan', 'planning (specs hashed, files checked, ownership)'],
  ['json', 'the --json document (items without `asset`, serialised, written to /dev/null)'],
];
/** The steps a dry run takes one after the other, without and with a warm cache (the worker rows overlap reading). */
const SUMMED = {
  cold: ['modules', 'manifest', 'lock', 'hash', 'plan', 'json'],
  warm: ['modules', 'cacheOpen', 'manifestCached', 'lockCached', 'stamps', 'plan', 'json'],
};

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
  const { hashProjectFiles, planBuild, recordedFiles } = await load('pipeline/plan.js');
  const { preloadHashes } = await load('pipeline/hash-preload.js');
  const { PlanCache } = await load('pipeline/plan-cache.js');
  const { planCacheKey } = await load('config/plan-cache-key.js');
  const { terminalSafeJson } = await load('ui/sanitize.js');
  lap('modules');
  const file = locateManifest(process.cwd());
  const manifest = loadManifest(file, process.cwd());
  lap('manifest');
  const lock = readLock(lockFileFor(file));
  lap('lock');
  const hashes = await hashProjectFiles(manifest, lock);
  lap('hash');
  const preload = preloadHashes(manifest.root, recordedFiles(lock));
  if (preload) await preload.hashes();
  lap('hashWorker');
  // Fewer files than a thread is worth: the dry run starts none, and there is no row for it.
  if (!preload) delete times.hashWorker;
  // The warm cache (a dry run made it before this round): each of its steps as a dry run takes them.
  const key = planCacheKey(process.env);
  let cache = PlanCache.open(manifest.root, key);
  lap('cacheOpen');
  loadManifest(file, process.cwd(), cache);
  lap('manifestCached');
  readLock(lockFileFor(file), cache);
  lap('lockCached');
  cache.lookUp(recordedFiles(lock));
  lap('stamps');
  const hits = [cache.stats.manifest, cache.stats.lock, cache.stats.trusted];
  cache = PlanCache.open(manifest.root, key);
  wall = performance.now();
  used = cpu();
  cache.checkAhead();
  const ahead = cache.checkingAhead;
  await cache.lookUpAhead(recordedFiles(lock));
  lap('stampsWorker');
  if (!ahead) delete times.stampsWorker;
  const plan = planBuild(manifest, lock, hashes, { service });
  lap('plan');
  const items = plan.items.map(({ asset, ...rest }) => ({
    ...rest,
    out: asset.out.type === 'file' ? asset.out.path : `${asset.out.dir}/`,
  }));
  fs.writeFileSync('/dev/null', `${terminalSafeJson({ items }, 2)}\n`);
  lap('json');
  times.hits = hits;
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
  const sum = (keys) => keys.reduce((total, key) => total + figure(key, 'wallMs'), 0);
  const total = { cold: sum(SUMMED.cold), warm: sum(SUMMED.warm) };
  const warmOnly = new Set(['cacheOpen', 'manifestCached', 'lockCached', 'stamps', 'stampsWorker']);
  const coldOnly = new Set(['manifest', 'lock', 'hash', 'hashWorker']);
  // The warm rows are only what they say when the cache was used: the child reports what it found.
  const [manifestHit, lockHit, trusted] = runs[0].hits;
  const warmNote =
    manifestHit === 'hit' && lockHit === 'hit' ? `${trusted} files vouched for` : `cache not used: ${runs[0].hits.join(', ')}`;
  return FACTORS.filter(([key]) => key === 'start' || runs.every((run) => run[key])).map(([key, what]) => ({
    figure: `split: ${what} (median of ${rounds})`,
    measured: `${figure(key, 'wallMs').toFixed(0)} ms (CPU ${figure(key, 'cpuMs').toFixed(0)} ms)`,
    baseline: warmOnly.has(key)
      ? `the warm steps' sum, ${total.warm.toFixed(0)} ms (${warmNote})`
      : coldOnly.has(key)
        ? `the steps' sum without a cache, ${total.cold.toFixed(0)} ms`
        : `the sums without and with a warm cache, ${total.cold.toFixed(0)} / ${total.warm.toFixed(0)} ms`,
    ratio: figure(key, 'wallMs') / (warmOnly.has(key) ? total.warm : total.cold),
    goal: 'reference',
    met: undefined,
  }));
}

if (process.argv[2] === '--child') await child(process.argv[3]);
