// --preview through the real command table against the bundled mock: what reaches stderr (exactly
// the bytes of the saved file in the chosen protocol) and what never does (not a terminal, --json, -q).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderImage } from '../../src/ui/preview/index.js';
import { parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ config: { videoPollAfterMs: 20 } });

const ESC = '\u001b';
/** On a terminal (stderr), with extra environment variables. */
const onTerminal = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  project.run(args, { env: { ...project.env(), ...extra }, tty: { stderr: true } });
const generate = ['generate', 'gem', '-a', 'sprite-artist'];

describe('--preview', () => {
  it('draws the saved image on stderr in the named protocol; stdout is only the path', async () => {
    for (const protocol of ['kitty', 'iterm', 'sixel'] as const) {
      const result = await onTerminal([...generate, '--force', '-o', 'gem.png', `--preview=${protocol}`]);
      expect(result.code).toBe(0);
      const saved = result.stdout.trim();
      expect(result.stdout).not.toContain(ESC);
      expect(result.stderr).toContain(renderImage(fs.readFileSync(saved), protocol));
    }
  });

  it('kitty: exactly the saved PNG, base64, in one APC with r=8', async () => {
    const result = await onTerminal([...generate, '--preview', 'kitty']);
    const file = fs.readFileSync(result.stdout.trim());
    expect(result.stderr).toContain(`${ESC}_Ga=T,f=100,q=2,r=8;${file.toString('base64')}${ESC}\\\n`);
  });

  it('a bare --preview is auto, before the command or after the prompt, and detects from the environment', async () => {
    const before = await onTerminal(['--preview', ...generate], { TERM: 'xterm-kitty' });
    expect(before.code).toBe(0);
    expect(before.stderr).toContain(`${ESC}_Ga=T,f=100`);
    const after = await onTerminal([...generate, '--force', '-o', 'x.png', '--preview'], { TERM_PROGRAM: 'iTerm.app' });
    expect(after.stderr).toContain(`${ESC}]1337;File=inline=1;`);
  });

  it('on a terminal without a detected protocol: one line, no escape sequence', async () => {
    const result = await onTerminal([...generate, '--preview'], { TERM: 'xterm-256color' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Preview not shown: no inline image protocol detected (try --preview=kitty|iterm|sixel)\n');
    expect(result.stderr).not.toContain(ESC);
  });

  it('ASSETGEN_PREVIEW is the default; the flag overrides it', async () => {
    const fromEnv = await onTerminal(generate, { ASSETGEN_PREVIEW: 'sixel' });
    expect(fromEnv.stderr).toContain(`${ESC}P0;1;0q`);
    const off = await onTerminal([...generate, '--force', '-o', 'x.png', '--preview=off'], { ASSETGEN_PREVIEW: 'sixel' });
    expect(off.stderr).not.toContain(ESC);
    const none = await onTerminal([...generate, '--force', '-o', 'y.png'], { TERM: 'xterm-kitty' });
    expect(none.stderr).not.toContain(ESC);
    expect(none.stderr).not.toContain('Preview');
  });

  it('nothing when stderr is not a terminal, with --json, or with -q', async () => {
    const piped = await project.run([...generate, '--preview=kitty']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain(ESC);
    expect(piped.stderr).not.toContain('Preview');
    const json = await onTerminal([...generate, '--force', '-o', 'j.png', '--json', '--preview=kitty']);
    expect(parseJson(json).saved).toHaveLength(1);
    expect(json.stderr).not.toContain(ESC);
    const quiet = await onTerminal([...generate, '--force', '-o', 'q.png', '-q', '--preview=kitty']);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it("a video (the mock's animated GIF) previews its first frame", async () => {
    const result = await onTerminal(['video', 'create', 'torch', '--yes', '--interval', '20ms', '--preview=sixel']);
    expect(result.code).toBe(0);
    const saved = result.stdout.trim();
    expect(saved.endsWith('.gif')).toBe(true);
    expect(result.stderr).toContain(renderImage(fs.readFileSync(saved), 'sixel'));
    expect(result.stderr).toContain(`${ESC}P0;1;0q"1;1;96;96`);
  });

  it('a workflow run previews each saved output', async () => {
    const result = await onTerminal(['workflows', 'run', 'wf_sprite_sheet', '-o', 'sheet/', '--preview=kitty']);
    expect(result.code).toBe(0);
    const saved = result.stdout.trim().split('\n');
    expect(saved.length).toBeGreaterThan(1);
    for (const file of saved.slice(0, 4)) expect(result.stderr).toContain(renderImage(fs.readFileSync(file), 'kitty'));
  });

  it('a bad value is a usage error before anything is paid for', async () => {
    const result = await onTerminal([...generate, '--preview=png']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Allowed choices are auto, kitty, iterm, sixel, off');
    expect((await project.ledger()).length).toBe(0);
  });
});
