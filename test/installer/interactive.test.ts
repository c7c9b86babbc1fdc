// The interactive installer through a real pseudo-terminal: pick agents, pick the scope, give the
// key at a masked prompt, read the plan, confirm.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readManifest } from '../../src/installer/manifest.js';
import { tempHome } from '../support/cli.js';
import { KEYS, spawnPty as spawnPtyIn } from '../support/pty.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const DOWN = KEYS.down;
const spawnPty = (args: string[], env: NodeJS.ProcessEnv) => spawnPtyIn(args, { env, cwd: home.cwd });

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
    // A "no" is a quiet cancel: exit 2, one line, no "Error:".
    expect(await session.exit).toBe(2);
    expect(session.screen()).toContain('Cancelled: nothing was written.');
    expect(session.screen()).not.toContain('Error:');
    expect(fs.existsSync(path.join(home.home, '.cursor'))).toBe(false);
  });

  // Ctrl-C at any prompt leaves with 130 and nothing written (raw mode: no SIGINT reaches us).
  const CTRL_C = '\x03';
  const prompts: [string, string[], Record<string, string>, string, string[]][] = [
    ['the agent selection', ['install'], {}, 'which coding agents', []],
    ['the scope', ['install', '--agent', 'cursor'], {}, 'project or for your user', []],
    ['the API key', ['install', '--agent', 'cursor', '--scope', 'user'], {}, 'API key for the CLI', []],
    [
      'the install confirmation',
      ['install', '--agent', 'cursor', '--scope', 'user'],
      { ASSETGEN_API_KEY: 'agk_0000000000000000000000000000000000000000' },
      'Write these files?',
      [],
    ],
  ];
  for (const [name, args, extra, question] of prompts) {
    it(`Ctrl-C at ${name} exits 130 and writes nothing`, async () => {
      const session = spawnPty(args, { ...home.env, ...extra });
      await session.waitFor(question);
      session.write(CTRL_C);
      expect(await session.exit).toBe(130);
      expect(session.screen()).toContain('Nothing was changed.');
      expect(session.screen()).not.toContain('bug in assetgen');
      expect(fs.existsSync(path.join(home.home, '.cursor'))).toBe(false);
      expect(fs.existsSync(path.join(home.env.ASSETGEN_CONFIG_DIR!, 'credentials.json'))).toBe(false);
      expect(fs.existsSync(path.join(home.env.ASSETGEN_CONFIG_DIR!, 'skills-manifest.json'))).toBe(false);
    });
  }

  it('Ctrl-C at the uninstall and update confirmations exits 130 and changes nothing', async () => {
    const env = { ...home.env, ASSETGEN_API_KEY: 'agk_0000000000000000000000000000000000000000' };
    const install = spawnPty(['install', '--agent', 'cursor', '--scope', 'user', '--yes'], env);
    expect(await install.exit).toBe(0);
    const skill = path.join(home.home, '.cursor', 'skills', 'assetgen', 'SKILL.md');
    const before = fs.readFileSync(skill, 'utf8');
    fs.writeFileSync(skill, `${before}\n<!-- an older version -->\n`);
    const manifest = path.join(home.env.ASSETGEN_CONFIG_DIR!, 'skills-manifest.json');
    const manifestBefore = fs.readFileSync(manifest, 'utf8');
    for (const args of [
      ['skills', 'uninstall', '--force'],
      ['skills', 'update', '--force'],
    ]) {
      const session = spawnPty(args, env);
      await session.waitFor(args[1] === 'uninstall' ? 'Remove these files?' : 'Write these files?');
      session.write(CTRL_C);
      expect(await session.exit).toBe(130);
      expect(session.screen()).toContain('Nothing was changed.');
      expect(fs.readFileSync(skill, 'utf8')).toContain('an older version');
      expect(fs.readFileSync(manifest, 'utf8')).toBe(manifestBefore);
    }
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
