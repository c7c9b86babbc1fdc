// The manifest, assetgen.yaml: which assets a project wants and where they go. Found like
// package.json (from the current directory upward), parsed with `yaml` (JSON is YAML too), and
// checked in full before anything is sent, every problem named as file:line:col (./validate.ts).
import fs from 'node:fs';
import path from 'node:path';
import { ManifestError, PipelineError } from './errors.js';
import { openRegularSync, PathRefusedError } from '../files/confine.js';
import { MANIFEST_LIMITS } from './manifest-limits.js';
import { collapseCombinations, quotingHint } from './templates.js';
import { validateManifest, type ValidateOptions } from './validate.js';
import type { Manifest } from './records.js';
import type { PlanCache } from './plan-cache.js';

export const MANIFEST_FILE = 'assetgen.yaml';

/** The manifest in `start` or the nearest parent directory that has one; null when none does. */
export function findManifest(start: string): string | null {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, MANIFEST_FILE);
    if (fs.statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * `-f <path>` when given (it must exist), else the nearest assetgen.yaml; a usage error when none,
 * whose hint says how the reader builds a manifest elsewhere (`otherManifest`: "pass -f <path>").
 */
export function locateManifest(cwd: string, file: string | undefined, otherManifest: string): string {
  if (file !== undefined) {
    const resolved = path.resolve(cwd, file);
    const stat = fs.statSync(resolved, { throwIfNoEntry: false });
    if (stat?.isDirectory()) {
      // `-f .`: the folder, not the manifest in it.
      const inside = path.join(resolved, MANIFEST_FILE);
      const named = path.join(file, MANIFEST_FILE);
      throw new PipelineError(
        `-f ${file}: a folder, not a file; -f names the manifest file itself.`,
        fs.statSync(inside, { throwIfNoEntry: false })?.isFile()
          ? `Pass -f ${named} (the manifest in that folder).`
          : `There is no ${MANIFEST_FILE} in it: name the manifest file, or run \`assetgen init -f ${named}\` to create one there.`,
      );
    }
    if (!stat) throw new PipelineError(`-f ${file}: no such file.`);
    if (!stat.isFile()) throw new PipelineError(`-f ${file}: not a regular file; -f names the manifest file itself.`);
    return resolved;
  }
  const found = findManifest(cwd);
  if (!found)
    throw new PipelineError(
      `No ${MANIFEST_FILE} in ${cwd} or any directory above it.`,
      `Run \`assetgen init\` to create one, or ${otherManifest}.`,
    );
  return found;
}

/**
 * Reads and checks a manifest; `cwd` only shortens the file name in error messages. With `cache`,
 * a text validated before is not validated again (./plan-cache.ts). `words`: the reader's, for its
 * issues (ctx.frontEnd; ValidateOptions), the command line's by default.
 */
export function loadManifest(file: string, cwd = process.cwd(), cache?: PlanCache, words: ValidateOptions = {}): Manifest {
  const absolute = path.resolve(cwd, file);
  const display = displayName(cwd, absolute);
  return parseManifest(readBounded(absolute, display), { file: absolute, display, cache, words });
}

/** The file's text, refused above MANIFEST_LIMITS.bytes before any of it is read. */
function readBounded(file: string, display: string): string {
  const limit = MANIFEST_LIMITS.bytes;
  const tooLarge = (size: string): PipelineError =>
    new PipelineError(
      `${display} is ${size} bytes; a manifest may be at most ${limit} bytes (8 MiB).`,
      'Split the assets across several manifests and build each with -f <path>.',
    );
  let fd: number;
  let size: number;
  try {
    // A regular file only: a FIFO would block the open forever (src/files/confine.ts).
    ({
      fd,
      stat: { size },
    } = openRegularSync(file, display));
  } catch (error) {
    if (error instanceof PathRefusedError) throw error;
    throw new PipelineError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    if (size > limit) throw tooLarge(String(size));
    // Read to the end, but never past the limit: a file that grew since the stat is caught too.
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(size - length + 1, 65_536), limit + 1 - length));
      const read = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      length += read;
      if (length > limit) throw tooLarge(`more than ${limit}`);
    }
    return Buffer.concat(chunks, length).toString('utf8');
  } catch (error) {
    if (error instanceof PipelineError) throw error;
    throw new PipelineError(`Cannot read ${file}: ${(error as Error).message}`);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Parses manifest text. `file` (absolute) decides the project root; `display` is the name used in
 * error positions (default: `file`). Throws ManifestError listing every problem.
 */
export function parseManifest(
  text: string,
  options: { file: string; display?: string; cache?: PlanCache; words?: ValidateOptions },
): Manifest {
  const root = path.dirname(options.file);
  const validate = () => validateManifest(text, options.words);
  // Only a manifest without issues is cached: the reader's words never are.
  const result = options.cache ? options.cache.manifest(options.file, text, validate) : validate();
  if (result.issues.length)
    throw new ManifestError(options.display ?? options.file, collapseCombinations(result.issues), quotingHint(text, result.issues));
  const { budget, prices, provenance } = result;
  return {
    file: options.file,
    root,
    assets: result.assets,
    ...(budget !== undefined ? { budget } : {}),
    ...(prices ? { prices } : {}),
    ...(provenance ? { provenance } : {}),
  };
}

function displayName(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}
