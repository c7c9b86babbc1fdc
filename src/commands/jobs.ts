// `assetgen jobs`: what this machine started (from the local journal), so nothing paid for is lost.
// Each unfinished job shows the same resume command its waiting command printed, and the service
// it is on when that is not the one a command would use now.
import { redactUrl } from '../client/redact.js';
import type { CommandContext } from '../cli/context.js';
import { command } from '../cli/command.js';
import { warnSkipped, type SkippedEntry } from '../cli/report.js';
import { resumeCommand, shellQuote, withOptions } from '../cli/resume.js';
import { printTable } from '../cli/table.js';
import { ANSWERED, REFUSED, SUBMITTING, type JournalEntry } from '../config/journal.js';
import { sanitizeLine } from '../ui/sanitize.js';

export const jobs = command({
  async run(ctx: CommandContext, options: { limit: number }) {
    const journal = ctx.journal.read();
    // A submission whose answer came back (or was refused) is settled: the job it made has a line of
    // its own, an image's answer was the image. Listed, they would push unfinished jobs out of `-n`.
    // Only what was started here has a submission record (its label): a job only looked at (`video
    // get <id>`) or followed by a build (whose lock keeps it, and whose next build resumes it) has
    // bare updates, and no command here would resume it into the right place.
    const entries = journal.entries
      .filter((entry) => entry.label !== undefined && entry.state !== ANSWERED && entry.state !== REFUSED)
      .slice(0, options.limit);
    const current = entries.length ? configuredBaseUrl(ctx) : undefined;
    return {
      jobs: entries.map((entry) => ({ ...entry, resume: resumeOf(ctx, entry, current) })),
      journal: ctx.journal.file,
      skipped: journal.skipped,
    };
  },
  render: renderJobs,
});

async function renderJobs(
  ctx: CommandContext,
  result: { jobs: (Omit<JournalEntry, 'resume'> & { resume: string | null })[]; skipped: SkippedEntry[] },
): Promise<void> {
  if (ctx.out.json) return;
  const withResume = result.jobs;
  warnSkipped(ctx, `record of ${ctx.journal.file ?? 'the journal'}`, result.skipped);
  if (!withResume.length) {
    ctx.out.info('No jobs started from this machine yet.');
    return;
  }
  const rows = withResume.map((entry) =>
    [entry.kind, entry.id, entry.state + (entry.refunded ? ' (refunded)' : ''), entry.updatedAt, entry.label ?? ''].map(sanitizeLine),
  );
  await printTable(ctx, ['KIND', 'ID', 'STATE', 'UPDATED', 'LABEL'], rows);
  const pending = withResume.filter((entry) => entry.resume);
  if (pending.length)
    ctx.out.info(`Unfinished: resume with\n${pending.map((entry) => `  ${sanitizeLine(entry.resume ?? '')}`).join('\n')}`);
}

/**
 * The command that picks the entry up. It goes to the service the journal recorded: with
 * `--base-url <that URL>` (no user or password) when a command run now would call another one.
 */
function resumeOf(ctx: CommandContext, entry: JournalEntry, current: string | undefined): string | null {
  const elsewhere = !sameService(entry.baseUrl, current);
  if (entry.state === SUBMITTING) {
    if (!entry.resubmit) return null;
    const words = ['assetgen', ...withOptions(entry.resubmit, elsewhere ? ['--base-url', redactUrl(entry.baseUrl)] : [])];
    return words.map(shellQuote).join(' ');
  }
  // An image is only ever a submission: once answered (or refused) there is nothing to wait for.
  // A succeeded job is done once its files are saved (`saved`); until then, resuming saves them.
  if (entry.kind === 'image' || (entry.state === 'succeeded' && entry.saved !== undefined) || entry.state === 'failed') return null;
  // A --base-url the waiting command was given is in its resume already.
  const baseUrl = entry.resume?.baseUrl ?? (elsewhere ? entry.baseUrl : undefined);
  return resumeCommand({ kind: entry.kind, id: entry.id, ...entry.resume, ...(baseUrl !== undefined ? { baseUrl } : {}) }, ctx.cwd);
}

/**
 * Whether a journalled job is on the service a command run now would call: an MCP tool call (which
 * has no --base-url) can pick it up only then.
 */
export function onServiceNow(ctx: CommandContext): (baseUrl: string) => boolean {
  const current = configuredBaseUrl(ctx);
  return (baseUrl) => sameService(baseUrl, current);
}

/** The base URL a command run now would call (--base-url, the environment, the stored one), as commands resolve it. */
function configuredBaseUrl(ctx: CommandContext): string | undefined {
  try {
    return ctx.credentials().baseUrl?.value;
  } catch {
    return undefined; // an unreadable credentials file: no service to count on, so every command names its own
  }
}

/** Two base URLs of the same service: the same URL once the client's reading of it (no user, query or fragment; a path ending in `/`) is applied. */
function sameService(recorded: string, current: string | undefined): boolean {
  return current !== undefined && serviceOf(recorded) === serviceOf(current);
}

function serviceOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl.trim());
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    if (!url.pathname.endsWith('/')) url.pathname += '/';
    return url.href;
  } catch {
    return baseUrl;
  }
}
