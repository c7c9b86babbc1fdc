// What a terminal review found in messages and hints: each says what is true of the command line it
// answers. `init -f <file>` names the file in its next step; `agents` checks the base URL before its
// cache; a folder or FIFO where one of assetgen's own files goes gets one full stop and a hint about
// moving it; a lock that is not JSON is named on one printable line, with a hint for whose lock it
// is; `init --engine … -q` does not point at a diff it did not show; `-f <folder>` says it is a folder.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonError, runInProcess, shellWords, tempHome, type CliResult } from '../support/cli.js';
import { writeFiles } from '../project/helpers.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const run = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
  runInProcess(args, { env: { ...home.env, ...env }, cwd: home.cwd });

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters a message must not carry
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** The `assetgen build … --dry-run` of init's "Next:" line, as words. */
function nextStep(result: CliResult): string[] {
  const command = /^Next: .*`(assetgen build[^`]*)` shows the plan/m.exec(result.stderr)?.[1];
  expect(command, result.stderr).toBeDefined();
  return shellWords(command!).slice(1);
}

describe('init: the next step names the manifest written', () => {
  it('init -f other.yml: `assetgen build -f other.yml --dry-run`, which then plans that manifest', async () => {
    const init = await run(['init', '-f', 'other.yml']);
    expect(init.code, init.stderr).toBe(0);
    const step = nextStep(init);
    expect(step).toEqual(['build', '-f', 'other.yml', '--dry-run']);
    const planned = await run([...step, '--mock']);
    expect(planned.code, planned.stderr).toBe(0);
    // Without -f the same command finds no manifest: the hint was needed.
    expect((await run(['build', '--dry-run', '--mock'])).code).toBe(2);
  });

  it('a path with a space is quoted for the shell; a manifest below the current folder keeps -f; the default needs none', async () => {
    const spaced = await run(['init', '-f', 'my game/assets.yml']);
    expect(spaced.code, spaced.stderr).toBe(0);
    expect(spaced.stderr).toContain("`assetgen build -f 'my game/assets.yml' --dry-run`");
    expect((await run([...nextStep(spaced), '--mock'])).code).toBe(0);

    const below = await run(['init', '-f', path.join('game', 'assetgen.yaml')]);
    expect(nextStep(below)).toEqual(['build', '-f', path.join('game', 'assetgen.yaml'), '--dry-run']);

    const plain = await run(['init']);
    expect(nextStep(plain)).toEqual(['build', '--dry-run']);
  });
});

describe('agents: the base URL is checked before the cache is read', () => {
  it('ASSETGEN_BASE_URL=notaurl with only a key: exit 2 "Invalid base URL", as generate and workflows list', async () => {
    const env = { ASSETGEN_API_KEY: 'agk_x', ASSETGEN_BASE_URL: 'notaurl' };
    const agents = await run(['agents', '--json'], env);
    expect(agents.code).toBe(2);
    expect(jsonError(agents)).toMatchObject({ exitCode: 2, message: 'Invalid base URL "notaurl".' });
    const generate = jsonError(await run(['generate', 'sword', '--agent', 'sprite-artist', '--json'], env));
    const workflows = jsonError(await run(['workflows', 'list', '--json'], env));
    expect(jsonError(agents)).toEqual(generate);
    expect(jsonError(agents)).toEqual(workflows);
    expect((await run(['agents'], env)).stderr).not.toContain('cached');
  });

  it('a key over plain http:// to a remote host is refused as the other commands refuse it (exit 2)', async () => {
    const env = { ASSETGEN_API_KEY: 'agk_x', ASSETGEN_BASE_URL: 'http://assets.example.com' };
    const agents = await run(['agents', '--json'], env);
    expect(agents.code).toBe(2);
    expect(jsonError(agents).message).toMatch(/^Refusing to send an API key over plain http:\/\//);
  });
});

describe("a folder or FIFO where one of assetgen's own files goes", () => {
  const stateFile = (name: string): string => path.join(home.env.ASSETGEN_STATE_DIR!, name);
  const configFile = (name: string): string => path.join(home.env.ASSETGEN_CONFIG_DIR!, name);

  /** One sentence ending in one full stop, the thing named as what it is, the hint to move it. */
  function expectMoveHint(result: CliResult, file: string, kind: string): Record<string, any> {
    const error = jsonError(result);
    expect(error.message).toMatch(new RegExp(`: it is ${kind.replace(/[()]/g, '\\$&')}, not a regular file\\.$`));
    expect(error.message).toContain(file);
    expect(error.message).not.toMatch(/\.\./);
    expect(error.hint).toMatch(/^Move (that folder|it) away or remove it; /);
    expect(error.hint).not.toContain('permissions');
    return error;
  }

  it('jobs: the journal (a folder, then a FIFO)', async () => {
    fs.mkdirSync(stateFile('jobs.jsonl'), { recursive: true });
    const folder = await run(['jobs', '--json']);
    expect(folder.code).toBe(1);
    expect(expectMoveHint(folder, stateFile('jobs.jsonl'), 'a folder').hint).toContain('starts a new journal');
    const human = await run(['jobs']);
    expect(human.stderr.split('\n')[0]).toBe(
      `error: Cannot read the job journal ${stateFile('jobs.jsonl')}: it is a folder, not a regular file.`,
    );
    if (process.platform !== 'win32') {
      fs.rmdirSync(stateFile('jobs.jsonl'));
      const { execFileSync } = await import('node:child_process');
      execFileSync('mkfifo', [stateFile('jobs.jsonl')]);
      expectMoveHint(await run(['jobs', '--json']), stateFile('jobs.jsonl'), 'a named pipe (FIFO)');
    }
  });

  it('auth status: a folder at credentials.json (exit 4, now with a hint)', async () => {
    fs.mkdirSync(configFile('credentials.json'), { recursive: true });
    const status = await run(['auth', 'status', '--json']);
    expect(status.code).toBe(4);
    expect(expectMoveHint(status, configFile('credentials.json'), 'a folder').hint).toContain('assetgen auth login');
  });

  it('skills list: a folder at skills-manifest.json', async () => {
    fs.mkdirSync(configFile('skills-manifest.json'), { recursive: true });
    const list = await run(['skills', 'list', '--json']);
    expect(list.code).not.toBe(0);
    expectMoveHint(list, configFile('skills-manifest.json'), 'a folder');
  });

  it.skipIf(process.platform === 'win32')('any other failure (a link loop there) keeps its own hint, and one full stop', async () => {
    fs.mkdirSync(home.env.ASSETGEN_STATE_DIR!, { recursive: true });
    fs.symlinkSync('jobs.jsonl', stateFile('jobs.jsonl'));
    const error = jsonError(await run(['jobs', '--json']));
    expect(error.message).toMatch(/^Cannot read the job journal .*: ELOOP: .*'\.$/);
    expect(error.hint).toMatch(/^Check its permissions\. /);
  });
});

describe('lock merge: a lock that is not JSON', () => {
  beforeEach(() => {
    writeFiles(home.cwd, { 'assetgen.yaml': 'assets: []\n', 'bad.lock': 'garbage{\n' });
  });

  it('is named on one printable line, with a hint for a shard lock named to `lock merge`', async () => {
    const merged = await run(['lock', 'merge', 'bad.lock', '--json']);
    expect(merged.code).toBe(2);
    const error = jsonError(merged);
    expect(error.message).toBe(
      `${path.join(home.cwd, 'bad.lock')} is not valid JSON: Unexpected token 'g', "garbage{\\n" is not valid JSON`,
    );
    expect(error.message).not.toMatch(CONTROL);
    expect(error.message).not.toContain('\n');
    expect(error.hint).toContain('assetgen lock merge');
    expect(error.hint).not.toContain('every asset is then seen as new');
    expect(fs.existsSync(path.join(home.cwd, 'assetgen.lock'))).toBe(false);
    // Without --json: the error is one line, the hint the next.
    const human = await run(['lock', 'merge', 'bad.lock']);
    expect(human.stderr.trimEnd().split('\n')).toHaveLength(2);
  });

  it("the project's own lock keeps its hint: restore it, or delete it (every asset is then seen as new)", async () => {
    fs.copyFileSync(path.join(home.cwd, 'bad.lock'), path.join(home.cwd, 'assetgen.lock'));
    for (const args of [
      ['lock', 'merge', 'bad.lock', '--json'],
      ['build', '--dry-run', '--mock', '--json'],
    ]) {
      const error = jsonError(await run(args));
      expect(error.message).toBe(
        `${path.join(home.cwd, 'assetgen.lock')} is not valid JSON: Unexpected token 'g', "garbage{\\n" is not valid JSON`,
      );
      expect(error.hint).toBe('Restore it from version control, or delete it (every asset is then seen as new).');
    }
  });

  it('a position is given its line and column, and an escape sequence is written out, not sent to the terminal', async () => {
    writeFiles(home.cwd, { 'bad.lock': '{\n  "lockfileVersion": 1,\n  "assets": {,}\n}\n', 'esc.lock': '\u001b[2J\n' });
    const position = jsonError(await run(['lock', 'merge', 'bad.lock', '--json']));
    expect(position.message).toMatch(/in JSON at position 39 \(line 3, column 14\)$/);
    const escaped = jsonError(await run(['lock', 'merge', 'esc.lock', '--json']));
    expect(escaped.message).toContain('"\\u001b[2J\\n"');
    expect(escaped.message).not.toMatch(CONTROL);
  });
});

describe('init --engine -q without a terminal', () => {
  it('does not point at "the diff above" when -q showed none', async () => {
    writeFiles(home.cwd, { 'project.godot': 'config_version=5\n\n[application]\n\nconfig/name="Game"\n' });
    const quiet = await run(['init', '--engine', 'godot', '-q']);
    expect(quiet.code).toBe(2);
    expect(quiet.stderr).not.toContain('diff above');
    expect(quiet.stderr).not.toContain('+textures/canvas_textures/default_texture_filter');
    expect(quiet.stderr).toContain('assetgen init would change project.godot (not shown with -q)');
    expect(quiet.stderr).toContain('--dry-run without -q');
    // Without -q the diff is there, and said to be.
    const loud = await run(['init', '--engine', 'godot']);
    expect(loud.stderr).toContain('(the diff above)');
    expect(loud.stderr).toContain('+textures/canvas_textures/default_texture_filter');
  });
});

describe('-f naming a folder', () => {
  it('build -f . says it is a folder, and names the manifest in it', async () => {
    writeFiles(home.cwd, { 'assetgen.yaml': 'assets: []\n' });
    const result = jsonError(await run(['build', '-f', '.', '--dry-run', '--mock', '--json']));
    expect(result.message).toBe('-f .: a folder, not a file; -f names the manifest file itself.');
    expect(result.hint).toBe('Pass -f assetgen.yaml (the manifest in that folder).');
    fs.mkdirSync(path.join(home.cwd, 'empty'));
    const empty = jsonError(await run(['build', '-f', 'empty', '--dry-run', '--mock', '--json']));
    expect(empty.message).toBe('-f empty: a folder, not a file; -f names the manifest file itself.');
    expect(empty.hint).toContain(`assetgen init -f ${path.join('empty', 'assetgen.yaml')}`);
    // A path that is not there is still "no such file".
    expect(jsonError(await run(['build', '-f', 'nope.yaml', '--dry-run', '--mock', '--json'])).message).toBe('-f nope.yaml: no such file.');
  });
});
