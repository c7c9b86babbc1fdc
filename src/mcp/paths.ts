// Output paths of tool calls: a model chooses them, so they stay inside the server's working
// directory by the one confinement rule (src/files/confine.ts: real paths, links followed only
// while they stay inside) unless the server was started with --allow-outside. Stdout is the
// protocol's: `-` is never an output here.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../cli/errors.js';
import { folderIn, PathRefusedError, placeIn, refuseControlCharacters } from '../files/confine.js';

/**
 * Checks an output path a tool was given (relative paths are from the server's working
 * directory); returns it unchanged. A trailing slash still means "a folder". The save checks
 * again with the same rule (the call's outputRoot).
 */
export function confineOutput(output: string | undefined, cwd: string, allowOutside: boolean, name = 'output'): string | undefined {
  if (output === undefined || output === '') return undefined;
  if (output === '-')
    throw new UsageError(`${name} "-" (stdout) is not available over MCP: stdout carries the protocol.`, 'Give a file or folder path.');
  try {
    refuseControlCharacters(output, name);
    if (allowOutside) return output;
    const resolved = path.resolve(cwd, output);
    const folder = /[\\/]$/.test(output) || (fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory() ?? false);
    if (folder) folderIn(cwd, resolved, `${name} ${output}`);
    else placeIn(cwd, resolved, `${name} ${output}`);
  } catch (error) {
    if (!(error instanceof PathRefusedError)) throw error;
    throw new UsageError(
      error.message.replace(` ${cwd}`, ` the server's working directory (${cwd})`),
      `Use a path inside the server's working directory (${cwd}), or start the server with \`assetgen mcp --allow-outside\`.`,
    );
  }
  return output;
}
