// "Never charge twice" holds only if the service honours Idempotency-Key, which the service document
// does not promise: every sentence that says a repeat costs nothing says so where it promises it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROMISE =
  /(never|without|not|no)(\s+\w+)?\s+(pay|paid|paying|pays|charge|charged|charging|charges)(\s+\w+)?\s+(twice|again)|no\s+second\s+charge|not\s+a\s+second\s+charge/i;
const PREMISE =
  /honou?rs?\s+(the\s+key|`?Idempotency-Key)|resume (it|them) by (its )?(job )?id|by id, with no second charge|for a job with an id|would pay twice|will not be paid for again/i;

function files(dir: string, pattern: RegExp): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => pattern.test(file))
    .map((file) => path.join(dir, file));
}

describe('paying once', () => {
  it('every promise of no second charge states its premise (README, docs, the skill, CLI and MCP text)', () => {
    const sources = ['README.md', ...files('docs', /\.md$/), ...files('templates', /\.md$/), ...files('src', /\.(ts|cts)$/)].filter(
      (file) => !file.startsWith(`src${path.sep}mock`),
    );
    const promises: string[] = [];
    for (const file of sources) {
      // A paragraph (docs) or a line of text a user reads (code, comments aside) is where a promise
      // and its premise must meet.
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      const units = file.endsWith('.md') ? text.split(/\n\s*\n/) : text.split('\n').filter((line) => !/^\s*(\/\/|\/?\*)/.test(line));
      for (const unit of units) {
        if (!PROMISE.test(unit)) continue;
        promises.push(file);
        expect(unit, `${file}: a promise without its premise`).toMatch(PREMISE);
      }
    }
    expect(promises).toContain('README.md');
    expect(promises).toContain(path.join('src', 'cli', 'idempotency.ts'));
    expect(promises).toContain(path.join('src', 'mcp', 'tools', 'common.ts'));
  });
});
