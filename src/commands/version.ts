// `assetgen version`: the same version `--version` prints, and with --json as a document.
import { command } from '../cli/command.js';
import { packageVersion } from '../package-info.cjs';

export const version = command({
  run: async () => ({ version: packageVersion(), node: process.versions.node }),
  render: (ctx, result) => ctx.out.result(result.version),
});
