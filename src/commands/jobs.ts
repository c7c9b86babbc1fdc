// `assetgen jobs`: what this machine started (from the local journal), so nothing paid for is lost.
import { UsageError } from '../cli/errors.js';
import type { CommandContext } from '../cli/context.js';
import { printTable } from '../cli/render.js';
import { sanitizeLine } from '../ui/sanitize.js';

export async function jobs(ctx: CommandContext, options: { limit: string }): Promise<void> {
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`Invalid --limit "${options.limit}": use a positive whole number.`);
  const entries = ctx.journal.list().slice(0, limit);
  const withResume = entries.map((entry) => ({
    ...entry,
    resume:
      entry.state === 'succeeded' || entry.state === 'failed'
        ? null
        : `assetgen ${entry.kind === 'video' ? 'video' : 'runs'} wait ${entry.id}`,
  }));
  ctx.out.document({ jobs: withResume, journal: ctx.journal.file });
  if (ctx.out.json) return;
  if (!entries.length) {
    ctx.out.info('No jobs started from this machine yet.');
    return;
  }
  const rows = withResume.map((entry) =>
    [entry.kind, entry.id, entry.state + (entry.refunded ? ' (refunded)' : ''), entry.updatedAt, entry.label ?? ''].map(sanitizeLine),
  );
  printTable(ctx, ['KIND', 'ID', 'STATE', 'UPDATED', 'LABEL'], rows);
  const pending = withResume.filter((entry) => entry.resume);
  if (pending.length) ctx.out.info(`Unfinished: resume with ${pending.map((entry) => `\`${entry.resume}\``).join(', ')}`);
}
