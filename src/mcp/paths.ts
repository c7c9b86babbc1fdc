// Output paths of tool calls: a model chooses them, so they stay inside the server's working
// directory (symlinks followed) unless the server was started with --allow-outside. Stdout is the
// protocol's: `-` is never an output here.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../cli/errors.js';

/** The deepest existing ancestor of `file`, resolved through symlinks, with the rest appended. */
function realish(file: string): string {
  let existing = file;
  const rest: string[] = [];
  while (!fs.existsSync(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  let real = existing;
  try {
    real = fs.realpathSync(existing);
  } catch {
    // unreadable: judge the path as written
  }
  return path.join(real, ...rest);
}

export function isInside(root: string, file: string): boolean {
  const relative = path.relative(realish(root), realish(file));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Checks an output path a tool was given (relative paths are from the server's working
 * directory); returns it unchanged. A trailing slash still means "a folder".
 */
export function confineOutput(output: string | undefined, cwd: string, allowOutside: boolean, name = 'output'): string | undefined {
  if (output === undefined || output === '') return undefined;
  if (output === '-')
    throw new UsageError(`${name} "-" (stdout) is not available over MCP: stdout carries the protocol.`, 'Give a file or folder path.');
  if (output.includes('\0')) throw new UsageError(`${name} contains a NUL character.`);
  if (allowOutside) return output;
  const resolved = path.resolve(cwd, output);
  if (!isInside(cwd, resolved)) {
    throw new UsageError(
      `${name} ${output} is outside the server's working directory (${cwd}).`,
      'Use a path inside the working directory, or start the server with `assetgen mcp --allow-outside`.',
    );
  }
  return output;
}
