// The project an MCP server's tools work on (build, list_takes, pick_variant): its manifest, found
// from the server's working directory and confined to it.
import path from 'node:path';
import { UsageError } from '../cli/errors.js';
import type { FrontEnd } from '../cli/front-end.js';
import { folderIn, PathRefusedError } from '../files/confine.js';

/**
 * The manifest a project tool call works on: found from the working directory upward like the
 * command's, but (without --allow-outside) only inside the working directory, by the one
 * confinement rule: a project above it would be written outside what the server may touch.
 * `there`: what the calling tool would do in that project, for the refusal ("the build would write
 * there", "check_assets would read the project there").
 */
export async function projectManifest(cwd: string, allowOutside: boolean, words: FrontEnd, there: string): Promise<string> {
  const { locateManifest } = await import('../pipeline/manifest.js');
  const file = locateManifest(cwd, undefined, words.otherManifest);
  if (allowOutside) return file;
  try {
    folderIn(cwd, path.dirname(file), path.dirname(file));
  } catch (error) {
    if (!(error instanceof PathRefusedError)) throw error;
    throw new UsageError(
      `The nearest assetgen.yaml is ${file}, outside the server's working directory (${cwd}): ${there}.`,
      'Start `assetgen mcp` in the project folder (where assetgen.yaml is), or with --allow-outside.',
    );
  }
  return file;
}
