// The installer's failures: a subclass of the shared base, so the CLI maps it like any other error.
import { AssetgenError } from '../client/errors.js';

/** Something on disk stops the install (a symlink it will not write through, a damaged manifest). */
export class InstallerError extends AssetgenError {
  constructor(message: string, options: { code?: string; hint?: string; cause?: unknown } = {}) {
    super(message, { code: options.code ?? 'installer', hint: options.hint, cause: options.cause });
  }
}
