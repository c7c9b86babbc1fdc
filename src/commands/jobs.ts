// `assetgen jobs`: what this machine started (from the local journal), so nothing paid for is lost.
// Each unfinished job shows the same resume command its waiting command printed.
import type { CommandContext } from '../cli/context.js';
import { command } from '../cli/command.js';
import { warnSkipped, type SkippedEntry } from '../cli/report.js';
import { resumeCommand, shellQuote } from '../cli/resume.js';
import { printTable } from '../cli/table.js';
import { ANSWERED, REFUSED, SUBMITTING, type JournalEntry } from '../config/journal.js';
import { sanitizeLine } from '../ui/sanitize.js';

export const jobs = command({
  async run(ctx: CommandContext, options: { limit: number }) {
    const journal = ctx.journal.read();
    const entries = journal.entries.slice(0, options.limit);
    return {
      jobs: entries.map((entry) => ({ ...entry, resume: resumeOf(ctx, entry) })),
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

function resumeOf(ctx: CommandContext, entry: JournalEntry): string | null {
  if (entry.state === SUBMITTING) return entry.resubmit ? ['assetgen', ...entry.resubmit].map(shellQuote).join(' ') : null;
  if ([ANSWERED, REFUSED, 'succeeded', 'failed'].includes(entry.state)) return null;
  return resumeCommand({ kind: entry.kind, id: entry.id, ...entry.resume }, ctx.cwd);
}
