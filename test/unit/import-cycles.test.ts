// src/ has no import circle, type-only and lazy imports included: records (types shared by several
// logic files) live in files of their own (src/pipeline/records.ts, src/commands/project/records.ts,
// src/client/transport-records.ts), which the logic files import instead of each other. A circle
// makes load order matter and couples files that should not know each other.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importCircles, importGraph } from '../support/source-graph.js';

const SRC = path.resolve(import.meta.dirname, '../../src');

describe('import circles', () => {
  it('src/ has none (import type, export … from, import() and require() included)', () => {
    const graph = importGraph(SRC);
    // The graph is real: every source file is in it, with the imports the compiler sees.
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('program.cts')).toContain('commands/completion.ts');
    const circles = importCircles(graph).map(
      (circle) => `${circle.files.length} files, e.g. ${circle.loop.join(' → ')}; imports inside it:\n    ${circle.imports.join('\n    ')}`,
    );
    expect(circles, `import circles in src/:\n  ${circles.join('\n  ')}`).toEqual([]);
  });

  describe('the check itself', () => {
    let dir: string | undefined;
    afterEach(() => {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    });

    const tree = (files: Record<string, string>): string => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-import-graph-'));
      for (const [name, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), text);
      }
      return dir;
    };

    it('finds circles made by import type, export from, a lazy import() and require()', () => {
      const root = tree({
        'a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
        'b.ts': "export { a } from './c.js';\nexport type B = string;\n",
        'c.ts': "export const a = async () => (await import('./a.js'));\n",
        'd.cts': "const e = require('./sub/e.cjs');\n",
        'sub/e.cts': "import type { D } from '../d.cjs';\n",
        'f.ts': "import { g } from './f.js';\nexport const g = 1;\n",
        'leaf.ts': "import { a } from './c.js';\nimport { z } from 'some-package';\n",
      });
      const circles = importCircles(importGraph(root));
      expect(circles.map((circle) => circle.files)).toEqual(
        expect.arrayContaining([['a.ts', 'b.ts', 'c.ts'], ['d.cts', 'sub/e.cts'], ['f.ts']]),
      );
      expect(circles).toHaveLength(3);
      const abc = circles.find((circle) => circle.files.includes('a.ts'))!;
      expect(abc.loop).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
      expect(abc.imports).toEqual(['a.ts → b.ts', 'b.ts → c.ts', 'c.ts → a.ts']);
    });

    it('refuses a relative import it cannot resolve rather than leave its edge out', () => {
      const root = tree({ 'a.ts': "import { b } from './missing.js';\n" });
      expect(() => importGraph(root)).toThrow(/a\.ts: cannot resolve "\.\/missing\.js"/);
    });
  });
});
