// The build pipeline's own failures. Every one is bad input (exit 2, code `usage`, mapped by the
// kit's exit-code table): the manifest, the lock, the selection or a path is wrong, and nothing has
// been sent to the service yet. And how an asset's failure in a build is told apart: one that
// building again as it is repeats, or one that may pass on a retry (buildFailure).
import { ApiError, AssetgenError } from '../client/errors.js';
import { ImagingError, type ImagingErrorCode } from '../imaging/errors.js';

/** The manifest, the lock, a selector, a shard or an output path is wrong: nothing was sent. */
export class PipelineError extends AssetgenError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'usage', hint });
  }
}

/** Where a problem is: 1-based line and column, as editors and `file:line:col` links count. */
export interface Position {
  line: number;
  col: number;
}

/** One problem in the manifest: the field it concerns (`assets[1].agent`) and where it is. */
export interface ManifestIssue extends Position {
  field: string;
  message: string;
}

/** At most this many issues are listed; a file with more has a bigger problem than any one line. */
const MAX_LISTED = 20;

/**
 * The manifest is wrong. The message lists every issue as `file:line:col: field: message`, so an
 * editor or CI log links straight to it, and all of them can be fixed in one go.
 */
export class ManifestError extends PipelineError {
  readonly file: string;
  readonly issues: readonly ManifestIssue[];

  constructor(file: string, issues: readonly ManifestIssue[], hint?: string) {
    const lines = issues.slice(0, MAX_LISTED).map((issue) => formatIssue(file, issue));
    if (issues.length > MAX_LISTED) lines.push(`…and ${issues.length - MAX_LISTED} more`);
    super(lines.join('\n'), hint);
    this.file = file;
    this.issues = issues;
  }
}

export function formatIssue(file: string, issue: ManifestIssue): string {
  return `${file}:${issue.line}:${issue.col}: ${issue.field ? `${issue.field}: ` : ''}${issue.message}`;
}

/** The lockfile cannot be read or merged (bad JSON, a foreign version, a merge conflict). */
export class LockError extends PipelineError {}

/**
 * An asset that failed in a build (its `--json` item's `error`): the error's code, and whether
 * building again as it is fails the same way (`repeats`) — the manifest, or a file the failure
 * names, must change first — or may pass (the service, the network, the disk). Decided by the
 * error's kind, never by its message: the build's last hint follows it (run-result.ts).
 */
export interface BuildFailure {
  code: string;
  repeats: boolean;
}

/**
 * Codes of failures that come back on every build until something changes: an image the steps or
 * the packer cannot take as asked (a slice grid larger than the image, a gaps count not found, a
 * frame larger than a sheet's page, …: the kept original's bytes do not change between builds), a
 * file in the way or a name another asset owns (`path_refused`), the manifest or the lock refused (`usage`).
 */
const REPEATING_IMAGING = [
  'not_an_image',
  'unsupported_format',
  'too_large',
  'damaged',
  'library_missing',
  'atlas_too_small',
  'bad_atlas_input',
  'slice_failed',
] as const satisfies readonly ImagingErrorCode[];
const REPEATING = new Set<string>([...REPEATING_IMAGING, 'path_refused', 'usage']);

/** What the service answers a request it will refuse again as it is: bad, unknown, too large, not processable. */
const REFUSED_AS_ASKED = new Set([400, 404, 413, 422]);

/** The failure an error stands for (BuildFailure). Anything not known to repeat may pass on a retry. */
export function buildFailure(error: unknown): BuildFailure {
  if (error instanceof ApiError) return { code: error.code, repeats: REFUSED_AS_ASKED.has(error.status) };
  if (error instanceof AssetgenError || error instanceof ImagingError) return { code: error.code, repeats: REPEATING.has(error.code) };
  return { code: 'failed', repeats: false };
}
