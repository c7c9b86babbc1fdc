// The interactive installer through a real pseudo-terminal: pick agents, pick the scope, give the
// key at a masked prompt, read the plan, confirm.
import fs from 'node:fs';
import path from 'node:path';
import pty from '@lydell/node-pty';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readManifest } from '../../src/installer/manifest.js';
import { BIN, tempHome } from '../e2e/harness.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const DOWN = '\u001b[B';

function spawnPty(args: string[], env: NodeJS.ProcessEnv) {
  const child = pty.spawn(process.execPath, [BIN, ...args], { cols: 140, rows: 40, cwd: home.cwd, env: env as Record<string, string> });
  let screen = '';
  let seen = 0;
  child.onData((data) => (screen += data));
  const exit = new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)));
  const killer = setTimeout(() => child.kill(), 25_000);
  void exit.then(() => clearTimeout(killer));
  return {
    screen: () => screen,
    write: (data: string) => child.write(data),
    /** Waits for text that appears after everything already matched (bounded). */
    async waitFor(text: string) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const index = screen.indexOf(text, seen);
        if (index >= 0) {
          seen = index + text.length;
          return;
        }
        if (Date.now() > deadline) throw new Error(`"${text}" not shown within 10 s; screen:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    exit,
  };
}

describe('assetgen install on a terminal', () => {
  it('preselects detected agents, asks scope and key, shows the plan, and installs on confirm', async () => {
    fs.mkdirSync(path.join(home.home, '.claude'));
    const key = 'agk_feedfacefeedfacefeedfacefeedfacefeedface';
    const session = spawnPty(['install'], home.env);
    await session.waitFor('which coding agents');
    expect(session.screen()).toMatch(/◉ Claude Code \(detected\)/);
    session.write(DOWN); // to OpenAI Codex
    session.write(' ');
    session.write('\r');
    await session.waitFor('project or for your user');
    session.write('\r'); // this project
    await session.waitFor('API key');
    session.write(`${key}\r`);
    await session.waitFor('Write these files?');
    // The plan names every file before anything is written.
    expect(session.screen()).toContain(path.join('.claude', 'skills', 'assetgen'));
    expect(session.screen()).toContain(path.join('.agents', 'skills', 'assetgen'));
    for (const file of ['SKILL.md', path.join('references', 'commands.md'), path.join('references', 'prompting.md')])
      expect(session.screen()).toContain(`create    ${file}`);
    expect(fs.existsSync(path.join(home.cwd, '.claude'))).toBe(false);
    session.write('\r');
    expect(await session.exit).toBe(0);

    expect(session.screen()).not.toContain(key);
    expect(session.screen()).toContain('*'.repeat(key.length));
    expect(fs.existsSync(path.join(home.cwd, '.claude', 'skills', 'assetgen', 'SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(home.cwd, '.agents', 'skills', 'assetgen', 'SKILL.md'))).toBe(true);
    const credentials = path.join(home.env.ASSETGEN_CONFIG_DIR!, 'credentials.json');
    expect(JSON.parse(fs.readFileSync(credentials, 'utf8'))).toMatchObject({ apiKey: key });
    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600);
    // The secret scan: nothing the installer wrote contains the key.
    const written = readManifest(home.env).files.map((entry) => entry.path);
    expect(written).toHaveLength(6);
    for (const file of written) expect(fs.readFileSync(file, 'utf8')).not.toContain(key);
    // And nowhere else under HOME (project included) but the CLI's own credentials file.
    const everything = fs.readdirSync(home.home, { recursive: true, encoding: 'utf8' }).map((p) => path.join(home.home, p));
    const holders = everything.filter((file) => fs.statSync(file).isFile() && fs.readFileSync(file, 'utf8').includes(key));
    expect(holders).toEqual([credentials]);
  });

  it('Ctrl-C at a prompt exits 130 and writes nothing', async () => {
    const session = spawnPty(['install'], home.env);
    await session.waitFor('which coding agents');
    session.write('\u0003');
    expect(await session.exit).toBe(130);
    expect(session.screen()).toContain('Nothing was changed.');
    expect(session.screen()).not.toContain('bug');
    expect(fs.readdirSync(home.cwd)).toEqual([]);
    expect(fs.existsSync(path.join(home.env.ASSETGEN_CONFIG_DIR!, 'skills-manifest.json'))).toBe(false);
  });

  it('writes nothing when the plan is declined', async () => {
    const session = spawnPty(['install', '--agent', 'cursor', '--scope', 'user'], {
      ...home.env,
      ASSETGEN_API_KEY: 'agk_0000000000000000000000000000000000000000',
    });
    await session.waitFor('Write these files?');
    session.write('n\r');
    expect(await session.exit).toBe(1);
    expect(fs.existsSync(path.join(home.home, '.cursor'))).toBe(false);
  });
  it('with a key already configured: no key prompt; user scope by arrow key; uninstall asks too', async () => {
    const env = { ...home.env, ASSETGEN_API_KEY: 'agk_0000000000000000000000000000000000000000' };
    const session = spawnPty(['install'], env);
    await session.waitFor('which coding agents');
    expect(session.screen()).not.toContain('(detected)');
    session.write(' '); // Claude Code, the first choice
    session.write('\r');
    await session.waitFor('project or for your user');
    session.write(DOWN);
    session.write('\r');
    await session.waitFor('Write these files?');
    expect(session.screen()).not.toContain('API key');
    session.write('y\r');
    expect(await session.exit).toBe(0);
    const skill = path.join(home.home, '.claude', 'skills', 'assetgen', 'SKILL.md');
    expect(fs.existsSync(skill)).toBe(true);
    expect(fs.existsSync(path.join(home.cwd, '.claude'))).toBe(false);

    const removal = spawnPty(['skills', 'uninstall'], env);
    await removal.waitFor('Remove these files?');
    expect(removal.screen()).toContain(skill);
    removal.write('\r');
    expect(await removal.exit).toBe(0);
    expect(fs.existsSync(path.join(home.home, '.claude'))).toBe(false);
  });
});
