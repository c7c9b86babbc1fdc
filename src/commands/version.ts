// `assetgen version`: the same version `--version` prints, and with --json as a document.
import fs from 'node:fs';
import type { CommandContext } from '../cli/context.js';

export async function version(ctx: CommandContext): Promise<void> {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  ctx.out.result(pkg.version);
  ctx.out.document({ version: pkg.version, node: process.versions.node });
}
