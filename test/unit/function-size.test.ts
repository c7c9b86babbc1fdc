// The densest functions of the tree, split into named steps (issue 26): each stays under 80 lines,
// measured on the TypeScript syntax tree from its declaration (doc comment excluded) to its
// closing brace. A function listed here that is renamed or moved fails too: update the list.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 80;
const SRC = path.resolve(import.meta.dirname, '../../src');

/** file (under src/) → the functions in it that must stay under MAX_LINES. */
const WATCHED: Record<string, string[]> = {
  'client/download.ts': ['download'],
  'commands/project/pool.ts': ['runPlan'],
  'commands/project/asset.ts': ['produce'],
  'pipeline/validate.ts': ['validateTree'],
};

/** The lines of each function named `name` in `file`: declarations, const arrows and methods alike. */
function functionLines(file: string, name: string): number[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const lines = (node: ts.Node): number =>
    source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const found: number[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name?.getText(source) === name && node.body)
      found.push(lines(node));
    else if (
      ts.isVariableDeclaration(node) &&
      node.name.getText(source) === name &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    )
      found.push(lines(node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the split functions', () => {
  for (const [file, names] of Object.entries(WATCHED))
    for (const name of names)
      it(`${name} (src/${file}) is under ${MAX_LINES} lines`, () => {
        const sizes = functionLines(path.join(SRC, file), name);
        expect(sizes, `no function ${name} in src/${file}`).not.toEqual([]);
        for (const size of sizes) expect(size, `${name} in src/${file} is ${size} lines`).toBeLessThan(MAX_LINES);
      });

  it('measures a function, a const arrow and a method from their declaration to their closing brace', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-function-size-'));
    try {
      const file = path.join(dir, 'sample.ts');
      fs.writeFileSync(
        file,
        [
          '/** Not counted: the doc comment. */',
          'export async function step(a: number): Promise<number> {',
          '  const b = a + 1;',
          '  return b;',
          '}',
          'const arrow = (a: number): number =>',
          '  a * 2;',
          'class Pool {',
          '  method(): void {}',
          '}',
          '',
        ].join('\n'),
      );
      expect(functionLines(file, 'step')).toEqual([4]);
      expect(functionLines(file, 'arrow')).toEqual([2]);
      expect(functionLines(file, 'method')).toEqual([1]);
      expect(functionLines(file, 'missing')).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
