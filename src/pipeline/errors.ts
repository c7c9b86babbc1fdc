// The build pipeline's own failures. Every one is bad input (exit 2, code `usage`, mapped by the
// kit's exit-code table): the manifest, the lock, the selection or a path is wrong, and nothing has
// been sent to the service yet.
import { AssetgenError } from '../client/errors.js';

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
