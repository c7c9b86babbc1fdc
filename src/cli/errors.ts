// Errors that only the command line has: the SDK never throws these.
import { AssetgenError } from '../client/errors.js';

/** Bad input caught before anything was sent: flags, arguments, local files. Exit 2. */
export class UsageError extends AssetgenError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'usage', hint });
  }
}

/**
 * The user said no at a confirmation (or pressed Ctrl-C/Escape at a prompt). Not a failure of the
 * tool: printed as a quiet line, never "error:".
 */
export class CancelledError extends AssetgenError {
  constructor(message: string) {
    super(message, { code: 'cancelled' });
  }
}

/** A build stopped submitting at --max-credits: what was skipped is listed. Exit 8. */
export class CreditCapError extends AssetgenError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'credit_cap', hint });
  }
}

/**
 * `assetgen check` (or `build --check`): an output breaks a rule of the manifest's `checks:`; each
 * is named with its figure. Exit 9: the assets fail the gate, the tool did not (docs/check.md).
 */
export class ChecksFailedError extends AssetgenError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'checks_failed', hint });
  }
}
