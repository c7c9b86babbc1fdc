// assetgen's own version, read from its package.json in one place (`--version`, `assetgen version`,
// the MCP server's info, the skill's stamp). CommonJS so that the CommonJS entry can use it too.
import { readFileSync } from 'node:fs';
import path from 'node:path';

let version: string | undefined;

export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
