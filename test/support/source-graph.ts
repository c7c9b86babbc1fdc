// The import graph of a source tree, as the TypeScript compiler reads it (ts.preProcessFile): every
// import and export … from, `import type` and lazy `import()` included, and `require()` in .cts
// files; each specifier resolved as tsc resolves it (NodeNext). For test/unit/source-rules.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Project-relative file → the project files it imports. */
export type ImportGraph = Map<string, Set<string>>;

const RESOLUTION: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };

/**
 * Every .ts/.cts/.mts file under `dir` with the files under `dir` it imports. Packages are left
 * out; a relative specifier that resolves to nothing throws (a typo must not hide an edge).
 */
export function importGraph(dir: string): ImportGraph {
  const root = path.resolve(dir);
  const files = fs
    .readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.[cm]?ts$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => path.join(root, file));
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const imports = new Set<string>();
    for (const { fileName: specifier } of importedFiles) {
      if (!specifier.startsWith('.')) continue;
      const resolved = ts.resolveModuleName(specifier, file, RESOLUTION, ts.sys).resolvedModule?.resolvedFileName;
      if (!resolved) throw new Error(`${path.relative(root, file)}: cannot resolve "${specifier}"`);
      const target = path.resolve(resolved);
      if (target.startsWith(root + path.sep)) imports.add(path.relative(root, target));
    }
    graph.set(path.relative(root, file), imports);
  }
  return graph;
}

/**
 * The import circles of a graph: its strongly connected components of more than one file (or a
 * file that imports itself), each as its files, the shortest loop through the first of them, and
 * every import inside it (one of which must go).
 */
export function importCircles(graph: ImportGraph): { files: string[]; loop: string[]; imports: string[] }[] {
  return components(graph)
    .filter((component) => component.length > 1 || graph.get(component[0])?.has(component[0]))
    .map((component) => {
      const inside = new Set(component);
      const files = [...component].sort();
      return {
        files,
        loop: loopFrom(graph, inside, files[0]),
        imports: files.flatMap((file) => [...(graph.get(file) ?? [])].filter((to) => inside.has(to)).map((to) => `${file} → ${to}`)),
      };
    });
}

/** Tarjan's strongly connected components, iterative (no recursion limit on a deep chain of imports). */
function components(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: Iterator<string> }[] = [];
    const enter = (node: string): void => {
      index.set(node, index.size);
      low.set(node, index.get(node)!);
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: (graph.get(node) ?? new Set()).values() });
    };
    enter(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const step = frame.next.next();
      if (!step.done) {
        const to = step.value;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let node: string;
        do {
          node = stack.pop()!;
          onStack.delete(node);
          component.push(node);
        } while (node !== frame.node);
        found.push(component);
      }
    }
  }
  return found;
}

/** The shortest way from `from` back to itself inside one component (breadth first), as a list of files. */
function loopFrom(graph: ImportGraph, inside: Set<string>, from: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [from];
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at];
    for (const to of graph.get(node) ?? []) {
      if (!inside.has(to)) continue;
      if (to === from) {
        const loop = [from];
        for (let back = node; back !== from; back = cameFrom.get(back)!) loop.splice(1, 0, back);
        return [...loop, from];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [from];
}
