// Where assetgen keeps its own files. Environment overrides exist so tests (and unusual setups)
// can point everything at a temp dir.
import os from 'node:os';
import path from 'node:path';
import { isWindows, platform } from '../platform.js';

export type Env = Record<string, string | undefined>;

const APP = 'assetgen';

/** The user's home folder: $HOME (or %USERPROFILE%) when set, so tests and sandboxes can move it. */
export function homeDir(env: Env = process.env): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

/** Directory of the credentials/settings file (kept at mode 0700). */
export function configDir(env: Env = process.env): string {
  if (env.ASSETGEN_CONFIG_DIR) return path.resolve(env.ASSETGEN_CONFIG_DIR);
  const home = homeDir(env);
  if (isWindows()) return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), APP);
  if (platform() === 'darwin' && !env.XDG_CONFIG_HOME) return path.join(home, 'Library', 'Preferences', APP);
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), APP);
}

/** Directory of local state that is not configuration: the job journal. */
export function stateDir(env: Env = process.env): string {
  if (env.ASSETGEN_STATE_DIR) return path.resolve(env.ASSETGEN_STATE_DIR);
  const home = homeDir(env);
  if (isWindows()) return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), APP, 'state');
  if (platform() === 'darwin' && !env.XDG_STATE_HOME) return path.join(home, 'Library', 'Application Support', APP);
  return path.join(env.XDG_STATE_HOME || path.join(home, '.local', 'state'), APP);
}
