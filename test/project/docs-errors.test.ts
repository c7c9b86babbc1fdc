// docs/build.md's "Errors" example is what assetgen prints: its manifest, run as the doc shows, gives
// the doc's text byte for byte (the first line with the "error: " every failure starts with), exit 2.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, tempHome } from '../support/cli.js';

const docs = fs.readFileSync(new URL('../../docs/build.md', import.meta.url), 'utf8');
const section = docs.slice(docs.indexOf('\n### Errors\n'), docs.indexOf('\n### Limits\n'));

describe('docs/build.md, Errors', () => {
  it('the example manifest gives the documented errors, exit 2', async () => {
    const manifest = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const [command, ...printed] = /\n```\n(\$ assetgen [\s\S]*?)```/.exec(section)![1]!.split('\n');
    const home = tempHome();
    try {
      fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), manifest);
      // The plan needs a service to judge against; none is called: the manifest stops it first.
      const args = [...command!.replace(/^\$ assetgen /, '').split(' '), '--mock'];
      const result = await runInProcess(args, { env: home.env, cwd: home.cwd });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(printed.join('\n'));
    } finally {
      home.remove();
    }
  });
});
