// What `assetgen build` and `assetgen report` start from: the manifest (found from the current
// directory upward, or -f), its lock's path, and the service that is part of every asset's spec.
import type { CommandContext } from '../../cli/context.js';
import { serviceId } from '../../pipeline/hash.js';
import { lockFileFor } from '../../pipeline/lock.js';
import { loadManifest, locateManifest } from '../../pipeline/manifest.js';
import type { Manifest } from '../../pipeline/records.js';

export interface Project {
  file: string;
  manifest: Manifest;
  lockFile: string;
  /** The configured URL's host, or `mock`; '' when no service is configured. */
  service: string;
}

export function openProject(ctx: CommandContext, file: string | undefined): Project {
  const found = locateManifest(ctx.cwd, file, ctx.frontEnd.otherManifest);
  return {
    file: found,
    manifest: loadManifest(found, ctx.cwd),
    lockFile: lockFileFor(found),
    service: serviceId(ctx.credentials().baseUrl?.value, ctx.globals.mock),
  };
}
