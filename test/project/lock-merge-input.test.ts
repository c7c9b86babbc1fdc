// What `assetgen lock merge <files…>` is named (docs/build.md, `lock merge`): a shard lock whose
// fields are malformed — any of them — is exit 2 with the hint to take it again from its shard or
// leave it out, assetgen.lock unchanged; an asset id no manifest could have (`__proto__`, say) is
// refused by the lock's check, never silently dropped; and a folder or a FIFO named as a lock is
// said to be no lock file (it is the user's input, not a file assetgen makes again).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonError, type CliResult } from '../support/cli.js';
import { ledgerOf } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({
  mock: { credits: 10_000 },
  config: { credits: 10_000, faults: { rate: 0 }, idempotency: { maxAgeMs: 1 } },
});

const MANIFEST = `defaults: { agent: icon-forge, out: assets/ }\nassets:\n${['a', 'b', 'c', 'd'].map((id) => `  - { id: ${id}, prompt: a ${id} }\n`).join('')}`;
const HINT =
  "It was named to `assetgen lock merge` as a shard's lock: take it again from the shard's build that wrote it (`--lock-out`), or leave it out; assetgen.lock was not changed.";
const file = (name: string): string => path.join(project.cwd, name);
const ZERO = '0'.repeat(64);

async function ok(args: string[]): Promise<CliResult> {
  const result = await project.run(args);
  expect(result.code, `assetgen ${args.join(' ')}\n${result.stderr}`).toBe(0);
  return result;
}

/** a and b built on main; both shards of 2 built from that lock (c and d new), shard 1's lock to spoil. */
async function shardLocks(): Promise<{ base: string; shard: string }> {
  fs.writeFileSync(file('assetgen.yaml'), MANIFEST);
  await ok(['build', 'a', 'b', '--yes', '-q']);
  for (const k of [1, 2]) await ok(['build', '--yes', '-q', '--shard', `${k}/2`, '--lock-out', `ci/s${k}.lock`]);
  return { base: fs.readFileSync(file('assetgen.lock'), 'utf8'), shard: fs.readFileSync(file('ci/s1.lock'), 'utf8') };
}

/** `lock merge` of `name` (written as `text`) and shard 2's lock: exit 2, nothing charged, assetgen.lock as it was. */
async function refused(name: string, text: string | undefined, base: string): Promise<Record<string, any>> {
  if (text !== undefined) fs.writeFileSync(file(name), text);
  const { result, charges } = await ledgerOf(project, () => project.run(['lock', 'merge', name, 'ci/s2.lock', '--json']));
  expect(result.code, `${name}: ${result.stderr}`).toBe(2);
  expect(charges).toBe(0);
  expect(fs.readFileSync(file('assetgen.lock'), 'utf8')).toBe(base);
  return jsonError(result);
}

/** Shard 1's lock with `edit` applied to its parsed JSON. */
const edited = (shard: string, edit: (lock: Record<string, any>) => void): string => {
  const lock = JSON.parse(shard) as Record<string, any>;
  edit(lock);
  return JSON.stringify(lock, null, 2);
};

describe('lock merge: a malformed shard lock', () => {
  it('is exit 2 with the hint to take it again or leave it out, whichever field is wrong', async () => {
    const { base, shard } = await shardLocks();
    const first = (lock: Record<string, any>): string => Object.keys(lock.shardHistory)[0]!;
    const cases: Record<string, [string, string]> = {
      'dup.lock': [edited(shard, (l) => l.shardHistory[first(l)].push(l.shardHistory[first(l)][0])), 'lists a digest twice'],
      'upper.lock': [
        edited(shard, (l) => (l.shardHistory[first(l)][0] = l.shardHistory[first(l)][0].toUpperCase())),
        'must be a list of sha256 digests',
      ],
      'empty.lock': [edited(shard, (l) => (l.shardHistory[first(l)] = [])), 'must be a list of sha256 digests'],
      'notmap.lock': [edited(shard, (l) => (l.shardHistory = ['x'])), 'shardHistory: must map asset ids to lists of sha256 digests'],
      'kind.lock': [edited(shard, (l) => (l.assets.a.kind = 'sound')), 'assets.a.kind: must be image, workflow, video or sheet'],
      'files.lock': [
        edited(shard, (l) => (l.assets.a.files = [{ path: '../outside.png', sha256: ZERO, size: 1 }])),
        'is not a path inside the project',
      ],
      'version.lock': [edited(shard, (l) => (l.lockfileVersion = 99)), 'lockfileVersion: is 99'],
      'top.lock': ['[]\n', 'top level: must be an object'],
      'garbage.lock': ['garbage\n', 'is not valid JSON'],
    };
    for (const [name, [text, problem]] of Object.entries(cases)) {
      const error = await refused(`ci/${name}`, text, base);
      expect(error.message).toContain(problem);
      expect(error.hint, name).toBe(HINT);
    }
    // A malformed journal beside a named lock: its replay is that lock too.
    fs.writeFileSync(file('ci/.s1.lock.journal'), `${JSON.stringify({ id: 'a', entry: { kind: 'sound', files: [] } })}\n`);
    const error = await refused('ci/s1.lock', undefined, base);
    expect(error.message).toContain('.s1.lock.journal: assets.a.kind');
    expect(error.hint).toBe(HINT);
  });

  it('refuses an asset id no manifest could have — `__proto__`, in assets or in shardHistory — instead of dropping it', async () => {
    const { base, shard } = await shardLocks();
    const entry = JSON.stringify(JSON.parse(shard).assets.a);
    // Written as text: JSON.parse makes "__proto__" an own key, as a hand-edited or hostile file would have it.
    const inAssets = shard.replace('"assets": {', `"assets": {"__proto__": ${entry},`);
    const inHistory = shard.replace('"shardHistory": {', `"shardHistory": {"__proto__": ["${ZERO}"],`);
    const notAnId = (where: string) =>
      `${where}: is not an asset id (1 to 100 letters, digits, _ . -, starting with a letter or digit): no manifest has this asset`;
    expect((await refused('ci/proto.lock', inAssets, base)).message).toBe(notAnId(`${file('ci/proto.lock')}: assets["__proto__"]`));
    expect((await refused('ci/protoh.lock', inHistory, base)).message).toBe(
      notAnId(`${file('ci/protoh.lock')}: shardHistory["__proto__"]`),
    );
    for (const id of ['-a', 'a b', 'x'.repeat(101), 'sword\u001b[31m']) {
      const text = edited(shard, (l) => (l.assets[id] = l.assets.a));
      const error = await refused('ci/odd.lock', text, base);
      expect(error.message).toContain(': is not an asset id');
      expect(error.message).not.toContain('\u001b');
      expect(error.hint).toBe(HINT);
    }
    // The project's own lock is checked so too (its hint is not the shard's).
    fs.writeFileSync(file('assetgen.lock'), base.replace('"assets": {', `"assets": {"__proto__": ${entry},`));
    const dry = await project.run(['build', '--dry-run', '--json']);
    expect(dry.code).toBe(2);
    expect(jsonError(dry).message).toBe(notAnId(`${file('assetgen.lock')}: assets["__proto__"]`));
    // And a journal record of such an id is no record assetgen wrote.
    fs.writeFileSync(file('assetgen.lock'), base);
    fs.writeFileSync(file('.assetgen.lock.journal'), `${JSON.stringify({ id: '__proto__', entry: JSON.parse(entry) })}\n`);
    const replay = await project.run(['build', '--dry-run', '--json']);
    expect(replay.code).toBe(2);
    expect(jsonError(replay).message).toBe(`${file('.assetgen.lock.journal')}: line 1 is not a journal record.`);
  });
});

describe('lock merge: a path that is no lock file', () => {
  it('a folder or a FIFO is said to be no lock file, naming what is expected', async () => {
    const { base } = await shardLocks();
    const folder = await refused('ci', undefined, base);
    expect(folder.message).toBe(
      `${file('ci')} is a folder, not a lock file: \`assetgen lock merge\` joins the lock files a sharded build wrote.`,
    );
    expect(folder.hint).toBe(
      `Name each shard's lock, the file its \`assetgen build --shard k/n --lock-out <file>\` wrote (the locks in that folder: ${path.join(file('ci'), '*.lock')}); assetgen.lock was not changed.`,
    );
    expect(folder.hint).not.toContain('makes the file again');
    if (process.platform === 'win32') return;
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [file('ci/fifo.lock')]);
    const fifo = await refused('ci/fifo.lock', undefined, base);
    expect(fifo.message).toBe(
      `${file('ci/fifo.lock')} is a named pipe (FIFO), not a lock file: \`assetgen lock merge\` joins the lock files a sharded build wrote.`,
    );
    expect(fifo.hint).toBe(
      "Name each shard's lock, the file its `assetgen build --shard k/n --lock-out <file>` wrote; assetgen.lock was not changed.",
    );
  });
});
