// `assetgen skills install|uninstall|list|update` (and `assetgen install`): put the assetgen skill
// where each coding agent looks. Prompts only on a terminal; without one, flags say everything.
import fs from 'node:fs';
import path from 'node:path';
import { AssetgenError, UsageError } from '../client/errors.js';
import { CredentialStore, resolveCredentials } from '../config/credentials.js';
import { AGENTS, detectAgents, findAgent, type AgentRecord, type Scope } from '../installer/agents.js';
import { applyPlan, applyUninstall, installedTargets, planInstall, planUninstall, resolveTargets, type PlannedFile, type Target } from '../installer/install.js';
import { manifestPath, readManifest } from '../installer/manifest.js';
import { invocationCommand, packageVersion, renderSkill, sha256 } from '../installer/render.js';
import type { CommandContext } from '../runtime/context.js';
import { printTable } from '../runtime/render.js';

export interface InstallOptions {
  agent: string[];
  allDetected?: boolean;
  scope?: string;
  projectDir?: string;
  yes?: boolean;
  dryRun?: boolean;
  force?: boolean;
}

const promptContext = (ctx: CommandContext) => ({ input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal });

function parseScope(scope: string | undefined): Scope | undefined {
  if (scope === undefined) return undefined;
  if (scope !== 'project' && scope !== 'user') throw new UsageError(`Invalid --scope "${scope}": use project or user.`);
  return scope;
}

function agentsByIds(ids: string[]): AgentRecord[] {
  return ids.map((id) => {
    const agent = findAgent(id);
    if (!agent) throw new UsageError(`Unknown agent "${id}".`, `Known agents: ${AGENTS.map((a) => a.id).join(', ')}.`);
    return agent;
  });
}

export async function install(ctx: CommandContext, options: InstallOptions): Promise<void> {
  const env = ctx.env;
  const projectDir = path.resolve(ctx.cwd, options.projectDir ?? '.');
  let scope = parseScope(options.scope);
  const detected = detectAgents(env);
  let agents: AgentRecord[];

  if (options.agent.length || options.allDetected) {
    agents = [...agentsByIds(options.agent), ...(options.allDetected ? detected : [])];
    if (!agents.length) throw new UsageError('--all-detected found no coding agent on this machine.', `Name them with --agent <id>; known: ${AGENTS.map((a) => a.id).join(', ')}.`);
  } else if (ctx.interactive) {
    const { checkbox } = await import('@inquirer/prompts');
    agents = await checkbox(
      {
        message: 'Install the assetgen skill for which coding agents?',
        choices: AGENTS.map((agent) => ({ name: `${agent.name}${detected.includes(agent) ? ' (detected)' : ''}`, value: agent, checked: detected.includes(agent) })),
        required: true,
        pageSize: AGENTS.length,
      },
      promptContext(ctx),
    );
  } else {
    throw new UsageError(
      'Which coding agents? There is no terminal to ask on (or --no-input was given).',
      `Pass --agent <id> (repeatable) or --all-detected, and --scope project|user. Known agents: ${AGENTS.map((a) => a.id).join(', ')}.`,
    );
  }
  if (!scope) {
    if (ctx.interactive && !options.yes) {
      const { select } = await import('@inquirer/prompts');
      scope = await select<Scope>(
        {
          message: 'Install for this project or for your user?',
          choices: [
            { name: `This project (${projectDir})`, value: 'project' },
            { name: 'My user (every project)', value: 'user' },
          ],
        },
        promptContext(ctx),
      );
    } else scope = 'project';
  }

  await offerToStoreKey(ctx, Boolean(options.dryRun || options.yes));

  const plan = planInstall(resolveTargets(agents, scope, projectDir, env), renderFor(ctx), readManifest(env), Boolean(options.force));
  await carryOut(ctx, plan, { action: 'install', scope }, { dryRun: options.dryRun, confirm: ctx.interactive && !options.yes, upToDate: 'Already installed and up to date: nothing to do.' });
}

/** The skill rendered for this machine: how to invoke the CLI, its version, the base URL. */
function renderFor(ctx: CommandContext) {
  const version = packageVersion();
  return renderSkill({ command: invocationCommand(ctx.env, version), version, baseUrl: resolveCredentials({ baseUrl: ctx.globals.baseUrl }, ctx.env).baseUrl?.value });
}

/** Shows the plan, then stops (nothing to do, dry run, declined) or writes it and reports. */
async function carryOut(
  ctx: CommandContext,
  plan: PlannedFile[],
  summary: Record<string, unknown>,
  options: { dryRun?: boolean; confirm: boolean; upToDate: string },
): Promise<void> {
  showPlan(ctx, plan);
  const document = { ...summary, dryRun: Boolean(options.dryRun), files: describePlan(plan) };
  if (plan.every((item) => !item.writeTo)) {
    ctx.out.info(options.upToDate);
    ctx.out.document({ ...document, changed: false });
    return;
  }
  if (options.dryRun) {
    ctx.out.info('Dry run: nothing was written.');
    ctx.out.document({ ...document, changed: false });
    return;
  }
  if (options.confirm) {
    const { confirm } = await import('@inquirer/prompts');
    if (!(await confirm({ message: 'Write these files?', default: true }, promptContext(ctx)))) {
      throw new AssetgenError('Cancelled: nothing was written.', { code: 'cancelled' });
    }
  }
  applyPlan(plan, ctx.env, packageVersion());
  reportApplied(ctx, plan);
  ctx.out.document({ ...document, changed: true });
}

/** On a terminal, when no credentials exist yet, offer to store the key (masked) for the CLI. */
async function offerToStoreKey(ctx: CommandContext, skip: boolean): Promise<void> {
  if (skip || !ctx.interactive) return;
  const creds = resolveCredentials({ baseUrl: ctx.globals.baseUrl }, ctx.env);
  if (creds.apiKey || creds.sessionCookie) return;
  const { password } = await import('@inquirer/prompts');
  const key = (await password({ message: 'API key for the CLI (stored in your user config, never in the skill; empty to skip):', mask: '*' }, promptContext(ctx))).trim();
  if (!key) {
    ctx.out.info('No key stored; run `assetgen auth login` before your agent uses the skill.');
    return;
  }
  const store = new CredentialStore(ctx.env);
  store.update({ apiKey: key, baseUrl: ctx.globals.baseUrl });
  ctx.out.info(`Stored the API key in ${store.path}.`);
}

function showPlan(ctx: CommandContext, plan: PlannedFile[]): void {
  const byTarget = new Map<Target, PlannedFile[]>();
  for (const item of plan) byTarget.set(item.target, [...(byTarget.get(item.target) ?? []), item]);
  for (const [target, items] of byTarget) {
    ctx.out.info(`${ctx.out.style.bold(path.join(target.skillsDir, 'assetgen'))}  (${target.agents.map((a) => a.name).join(', ')}; ${target.scope} scope)`);
    for (const item of items) {
      const relative = path.relative(path.join(target.skillsDir, 'assetgen'), item.path);
      const shown = item.action === 'keep-edited' ? `${relative} was edited: kept; new version goes to ${path.basename(item.writeTo!)}` : relative;
      ctx.out.info(`  ${item.action.padEnd(11)} ${shown}`);
    }
  }
}

function describePlan(plan: PlannedFile[]) {
  return plan.map((item) => ({ path: item.path, action: item.action, writes: item.writeTo, agents: item.target.agents.map((a) => a.id), scope: item.target.scope }));
}

function reportApplied(ctx: CommandContext, plan: PlannedFile[]): void {
  const written = plan.filter((item) => item.writeTo);
  const targets = [...new Set(written.map((item) => item.target))];
  ctx.out.info(`Wrote ${written.length} file${written.length === 1 ? '' : 's'} for ${targets.flatMap((t) => t.agents.map((a) => a.name)).join(', ')}.`);
  for (const item of plan.filter((p) => p.action === 'keep-edited')) {
    ctx.out.warn(`${item.path} was changed by you (or is not ours): kept it; the new version is ${item.writeTo}. Use --force to replace it.`);
  }
  for (const item of written) ctx.out.result(item.writeTo!);
}

export async function uninstall(ctx: CommandContext, options: { agent: string[]; force?: boolean; dryRun?: boolean }): Promise<void> {
  agentsByIds(options.agent);
  const manifest = readManifest(ctx.env);
  const removals = planUninstall(manifest, Boolean(options.force), options.agent);
  if (!removals.length) {
    ctx.out.info('The assetgen skill is not installed anywhere (by this installer).');
    ctx.out.document({ action: 'uninstall', files: [] });
    return;
  }
  for (const removal of removals) {
    const note = removal.action === 'keep-edited' ? 'keep (edited by you; --force removes it)' : removal.action;
    ctx.out.info(`  ${note.padEnd(8)} ${removal.entry.path}`);
  }
  const document = { action: 'uninstall', dryRun: Boolean(options.dryRun), files: removals.map((r) => ({ path: r.entry.path, action: r.action })) };
  if (options.dryRun) {
    ctx.out.info('Dry run: nothing was removed.');
    ctx.out.document(document);
    return;
  }
  applyUninstall(removals, ctx.env);
  const removed = removals.filter((r) => r.action === 'remove').length;
  ctx.out.info(`Removed ${removed} file${removed === 1 ? '' : 's'}.`);
  ctx.out.document(document);
}

export async function list(ctx: CommandContext): Promise<void> {
  const manifest = readManifest(ctx.env);
  const detected = detectAgents(ctx.env).map((a) => a.id);
  const files = manifest.files.map((entry) => {
    const state = !fs.existsSync(entry.path) ? 'missing' : sha256(fs.readFileSync(entry.path)) === entry.sha256 ? 'installed' : 'edited';
    return { ...entry, state: entry.pending ? 'pending-update' : state };
  });
  ctx.out.document({ installed: files, detected, manifest: manifestPath(ctx.env), agents: AGENTS.map(({ id, name, projectDir }) => ({ id, name, projectDir })) });
  if (ctx.out.json) return;
  if (!files.length) ctx.out.info('The assetgen skill is not installed yet: run `assetgen install`.');
  else printTable(ctx, ['STATE', 'SCOPE', 'VERSION', 'AGENTS', 'PATH'], files.map((f) => [f.state, f.scope, f.version, f.agents.join(','), f.path]));
  ctx.out.info(`Detected agents: ${detected.length ? detected.join(', ') : 'none'}.`);
}

export async function update(ctx: CommandContext, options: { force?: boolean; dryRun?: boolean }): Promise<void> {
  const manifest = readManifest(ctx.env);
  const targets = installedTargets(manifest);
  if (!targets.length) {
    ctx.out.info('Nothing to update: the skill is not installed. Run `assetgen install`.');
    ctx.out.document({ action: 'update', files: [] });
    return;
  }
  const plan = planInstall(targets, renderFor(ctx), manifest, Boolean(options.force));
  await carryOut(ctx, plan, { action: 'update' }, { dryRun: options.dryRun, confirm: false, upToDate: 'Everything is up to date.' });
}
