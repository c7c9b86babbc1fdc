// `assetgen version`: the same version `--version` prints, and with --json as a document.
import type { CommandContext } from '../cli/context.js';
import { packageVersion } from '../package-info.cjs';

export async function version(ctx: CommandContext): Promise<void> {
  const version = packageVersion();
  ctx.out.result(version);
  ctx.out.document({ version, node: process.versions.node });
}
