// What install and update share: render the skill for this machine, show the plan, then stop
// (nothing to do, dry run, declined) or apply it and report.
import type { CommandContext } from '../../cli/context.js';
import { confirmOrCancel } from '../../cli/prompt.js';
import { applyPlan, planChangesSomething, type PlannedFile } from '../../installer/install.js';
import { isTransientCopy, renderSkill, resolveInvocation, shellCommand, type RenderedFile } from '../../installer/render.js';
import { packageVersion } from '../../package-info.cjs';
import { describePlan, describeTargets, reportApplied, reportKept, showPlan } from './view.js';

/** The skill rendered for this machine: how to invoke the CLI, its version, the base URL (configured, or about to be). */
export function renderFor(ctx: CommandContext, baseUrl?: string): RenderedFile[] {
  const invocation = resolveInvocation(ctx.env);
  if (isTransientCopy(invocation))
    ctx.out.warn(
      `no assetgen on PATH: the skill runs this copy from npx's cache (${invocation.script}), which a cache clean removes. Install assetgen (npm i -g assetgen, or npm i -D assetgen in the project), then run \`assetgen skills update\`.`,
    );
  return renderSkill({
    command: shellCommand(invocation),
    version: packageVersion(),
    baseUrl: baseUrl ?? ctx.credentials().baseUrl?.value,
  });
}

/** More to write beside the skill files (the MCP server entries of `install --mcp`). */
export interface ExtraPlan {
  show(): void;
  changes: boolean;
  apply(): void;
  describe: Record<string, unknown>;
}

export async function carryOut(
  ctx: CommandContext,
  plan: PlannedFile[],
  summary: Record<string, unknown>,
  options: {
    dryRun?: boolean;
    confirm: boolean;
    upToDate: string;
    /** Credentials stored along with the plan (shown masked, and asked about like a file). */
    alsoStores?: { where: string; what: string[] };
    /** What else to do once the plan is accepted (never on a dry run, a "no" or Ctrl-C). */
    accepted?: () => void | Promise<void>;
    extra?: ExtraPlan;
  },
): Promise<InstallResult> {
  showPlan(ctx, plan);
  const { alsoStores, extra } = options;
  extra?.show();
  if (alsoStores) ctx.out.info(`Also stores in ${alsoStores.where}: ${alsoStores.what.join(', ')}.`);
  const document = {
    ...summary,
    dryRun: Boolean(options.dryRun),
    targets: describeTargets(plan),
    files: describePlan(plan),
    ...extra?.describe,
  };
  if (!planChangesSomething(plan) && !extra?.changes && !alsoStores) {
    ctx.out.info(options.upToDate);
    if (!options.dryRun) await options.accepted?.();
    reportKept(ctx, plan);
    return { ...document, changed: false };
  }
  if (options.dryRun) {
    ctx.out.info('Dry run: nothing was written.');
    return { ...document, changed: false };
  }
  // Only a plan that writes files (or credentials) asks; recording one more agent for an existing copy does not.
  const writesFiles = plan.some((item) => item.writeTo) || Boolean(extra?.changes);
  if (options.confirm && (writesFiles || alsoStores)) {
    const question = writesFiles ? 'Write these files?' : 'Store these settings?';
    await confirmOrCancel(ctx, question, { default: true, untouched: 'changed', cancelled: 'Cancelled: nothing was written.' });
  }
  await options.accepted?.();
  applyPlan(plan, ctx.env, packageVersion());
  extra?.apply();
  reportApplied(ctx, plan);
  return { ...document, changed: true };
}

/**
 * What install and update did (their --json document). The plan, the questions and what was
 * written are shown as they happen (the person answers in between), so there is nothing left to
 * render at the end.
 */
export type InstallResult = Record<string, unknown> & { dryRun: boolean; changed: boolean };

/** Install, update and uninstall show their plan while they run: their result needs no other view. */
export const shownAsItRan = (): void => {};
