// `assetgen skills install|uninstall|list|update` (and `assetgen install`): put the assetgen skill
// where each coding agent looks. Prompts only on a terminal; without one, flags say everything.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../cli/errors.js';
import { CredentialStore } from '../config/credential-store.js';
import { CODING_AGENTS, detectAgents, findAgent, type AgentRecord, type Scope } from '../installer/agents.js';
import {
  applyPlan,
  installedDirs,
  installedTargets,
  planChangesSomething,
  planInstall,
  resolveTargets,
  skillRoot,
  type PlannedFile,
} from '../installer/install.js';
import { manifestPath, readManifest } from '../installer/manifest.js';
import { applyUninstall, planUninstall } from '../installer/uninstall.js';
import { invocationCommand, packageVersion, renderSkill, sha256 } from '../installer/render.js';
import type { CommandContext } from '../cli/context.js';
import { checkbox, confirmOrCancel, password, select } from '../cli/prompt.js';
import { printTable } from '../cli/table.js';
import { plural } from '../cli/credits.js';
import { describePlan, describeTargets, reportApplied, reportKept, showPlan, showRemovals } from './skills-view.js';

export interface InstallOptions {
  agent: string[];
  allDetected?: boolean;
  scope?: string;
  projectDir?: string;
  yes?: boolean;
  dryRun?: boolean;
  force?: boolean;
}

export interface UninstallOptions {
  agent: string[];
  scope?: string;
  projectDir?: string;
  yes?: boolean;
  dryRun?: boolean;
  force?: boolean;
}

const knownAgents = (): string => CODING_AGENTS.map((agent) => agent.id).join(', ');

function parseScope(scope: string | undefined): Scope | undefined {
  if (scope === undefined) return undefined;
  if (scope !== 'project' && scope !== 'user') throw new UsageError(`Invalid --scope "${scope}": use project or user.`);
  return scope;
}

function agentsByIds(ids: string[]): AgentRecord[] {
  return ids.map((id) => {
    const agent = findAgent(id);
    if (!agent) throw new UsageError(`Unknown agent "${id}".`, `Known agents: ${knownAgents()}.`);
    return agent;
  });
}

/** The project root for project scope; it must exist (a typo must not create a new tree). */
function projectRoot(ctx: CommandContext, dir: string | undefined): string {
  const root = path.resolve(ctx.cwd, dir ?? '.');
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new UsageError(`--project-dir ${root} is not a directory.`);
  return root;
}

export async function install(ctx: CommandContext, options: InstallOptions): Promise<void> {
  const env = ctx.env;
  let scope = parseScope(options.scope);
  if (scope === 'user' && options.projectDir) throw new UsageError('--project-dir applies to --scope project only.');
  const projectDir = projectRoot(ctx, options.projectDir);
  const detected = detectAgents(env);
  let agents: AgentRecord[];

  if (options.agent.length || options.allDetected) {
    agents = [...new Set([...agentsByIds(options.agent), ...(options.allDetected ? detected : [])])];
    if (!agents.length)
      throw new UsageError(
        '--all-detected found no coding agent on this machine.',
        `Name them with --agent <id>; known: ${knownAgents()}.`,
      );
  } else if (ctx.interactive) {
    agents = await checkbox(
      ctx,
      'Install the assetgen skill for which coding agents?',
      CODING_AGENTS.map((agent) => ({
        name: `${agent.name}${detected.includes(agent) ? ' (detected)' : ''}`,
        value: agent,
        checked: detected.includes(agent),
      })),
      { required: true, untouched: 'changed' },
    );
  } else {
    // Never guess (and never "every agent"): a script must say which agents it means.
    throw new UsageError(
      'Which coding agents? There is no terminal to ask on (or --no-input was given), and --yes never means "all of them".',
      `Pass --agent <id> (repeatable) or --all-detected, and --scope project|user. Known agents: ${knownAgents()}.`,
    );
  }
  if (!scope) {
    if (ctx.interactive && !options.yes) {
      scope = await select<Scope>(
        ctx,
        'Install for this project or for your user?',
        [
          { name: `This project (${projectDir})`, value: 'project' },
          { name: 'My user (every project)', value: 'user' },
        ],
        'changed',
      );
    } else scope = 'project';
  }

  await offerToStoreKey(ctx, Boolean(options.dryRun || options.yes));

  const manifest = readManifest(env);
  const targets = resolveTargets(agents, scope, projectDir, env, installedDirs(manifest, scope, projectDir));
  const plan = planInstall(targets, renderFor(ctx), manifest, Boolean(options.force));
  await carryOut(
    ctx,
    plan,
    { action: 'install', scope },
    { dryRun: options.dryRun, confirm: ctx.interactive && !options.yes, upToDate: 'Already installed and up to date: nothing to do.' },
  );
}

/** The skill rendered for this machine: how to invoke the CLI, its version, the base URL. */
function renderFor(ctx: CommandContext) {
  const version = packageVersion();
  return renderSkill({ command: invocationCommand(ctx.env, version), version, baseUrl: ctx.credentials().baseUrl?.value });
}

/** Shows the plan, then stops (nothing to do, dry run, declined) or applies it and reports. */
async function carryOut(
  ctx: CommandContext,
  plan: PlannedFile[],
  summary: Record<string, unknown>,
  options: { dryRun?: boolean; confirm: boolean; upToDate: string },
): Promise<void> {
  showPlan(ctx, plan);
  const document = { ...summary, dryRun: Boolean(options.dryRun), targets: describeTargets(plan), files: describePlan(plan) };
  if (!planChangesSomething(plan)) {
    ctx.out.info(options.upToDate);
    reportKept(ctx, plan);
    ctx.out.document({ ...document, changed: false });
    return;
  }
  if (options.dryRun) {
    ctx.out.info('Dry run: nothing was written.');
    ctx.out.document({ ...document, changed: false });
    return;
  }
  if (options.confirm && plan.some((item) => item.writeTo)) {
    await confirmOrCancel(ctx, 'Write these files?', { default: true, untouched: 'changed', cancelled: 'Cancelled: nothing was written.' });
  }
  applyPlan(plan, ctx.env, packageVersion());
  reportApplied(ctx, plan);
  ctx.out.document({ ...document, changed: true });
}

/** On a terminal, when no credentials exist yet, offer to store the key (masked) for the CLI. */
async function offerToStoreKey(ctx: CommandContext, skip: boolean): Promise<void> {
  const creds = ctx.credentials();
  if (creds.apiKey || creds.sessionCookie) return;
  if (skip || !ctx.interactive) {
    // The skill works only once the CLI has credentials; say so rather than let the agent find out.
    ctx.out.info('No credentials are stored yet: run `assetgen auth login` before your agent uses the skill.');
    return;
  }
  const key = (
    await password(ctx, 'API key for the CLI (stored in your user config, never in the skill; empty to skip):', 'changed')
  ).trim();
  if (!key) {
    ctx.out.info('No key stored; run `assetgen auth login` before your agent uses the skill.');
    return;
  }
  // Only the CLI's own credentials file (0600 in a 0700 directory) ever holds the key.
  const store = new CredentialStore(ctx.env);
  store.update({ apiKey: key, baseUrl: ctx.globals.baseUrl });
  ctx.out.info(`Stored the API key in ${store.path}.`);
}

export async function uninstall(ctx: CommandContext, options: UninstallOptions): Promise<void> {
  agentsByIds(options.agent);
  const scope = parseScope(options.scope);
  if (scope === 'user' && options.projectDir) throw new UsageError('--project-dir applies to project scope only.');
  const projectDir = options.projectDir ? path.resolve(ctx.cwd, options.projectDir) : undefined;
  const removals = planUninstall(readManifest(ctx.env), Boolean(options.force), { agentIds: options.agent, scope, projectDir });
  if (!removals.length) {
    ctx.out.info('Nothing to remove: the installer has no files recorded for that.');
    ctx.out.document({ action: 'uninstall', dryRun: Boolean(options.dryRun), changed: false, files: [] });
    return;
  }
  showRemovals(ctx, removals);
  const document = {
    action: 'uninstall',
    dryRun: Boolean(options.dryRun),
    files: removals.map((r) => ({
      path: r.entry.path,
      action: r.action,
      ...(r.action === 'detach' ? { remainingAgents: r.remainingAgents } : {}),
    })),
  };
  if (options.dryRun) {
    ctx.out.info('Dry run: nothing was removed.');
    ctx.out.document({ ...document, changed: false });
    return;
  }
  if (ctx.interactive && !options.yes && removals.some((r) => r.action === 'remove')) {
    await confirmOrCancel(ctx, 'Remove these files?', {
      default: true,
      untouched: 'changed',
      cancelled: 'Cancelled: nothing was removed.',
    });
  }
  applyUninstall(removals, ctx.env);
  const removed = removals.filter((r) => r.action === 'remove').length;
  const kept = removals.filter((r) => r.action === 'keep-edited');
  const shared = removals.filter((r) => r.action === 'detach').length;
  ctx.out.info(`Removed ${plural(removed, 'file')}.${shared ? ` Kept ${plural(shared, 'file')} other agents still use.` : ''}`);
  for (const removal of kept)
    ctx.out.warn(`${removal.entry.path} was changed by you: kept it. \`assetgen skills uninstall --force\` removes it.`);
  ctx.out.document({ ...document, changed: true });
}

type FileState = 'installed' | 'edited' | 'missing' | 'pending-update';

export async function list(ctx: CommandContext): Promise<void> {
  const manifest = readManifest(ctx.env);
  const detected = detectAgents(ctx.env).map((agent) => agent.id);
  const files = manifest.files.map((entry) => {
    const onDisk = fs.existsSync(entry.path) ? sha256(fs.readFileSync(entry.path)) : null;
    const state: FileState = entry.pending
      ? 'pending-update'
      : onDisk === null
        ? 'missing'
        : onDisk === entry.sha256
          ? 'installed'
          : 'edited';
    return { ...entry, state };
  });
  ctx.out.document({
    installed: files,
    detected,
    manifest: manifestPath(ctx.env),
    agents: CODING_AGENTS.map(({ id, name, projectDir }) => ({ id, name, projectDir, detected: detected.includes(id) })),
  });
  if (ctx.out.json) return;
  if (!files.length) ctx.out.info('The assetgen skill is not installed yet: run `assetgen install`.');
  else {
    // One row per installed copy; the worst file state is the copy's state.
    const rows = installedTargets(manifest).map((target) => {
      const mine = files.filter((file) => file.skillsDir === target.skillsDir);
      const states = new Set(mine.map((file) => file.state));
      const state = (['missing', 'edited', 'pending-update'] as const).find((s) => states.has(s)) ?? 'installed';
      const versions = [...new Set(mine.filter((file) => !file.pending).map((file) => file.version))].join(',');
      return [state, target.scope, versions, target.agents.map((agent) => agent.id).join(','), skillRoot(target.skillsDir)];
    });
    printTable(ctx, ['STATE', 'SCOPE', 'VERSION', 'AGENTS', 'PATH'], rows);
  }
  ctx.out.info(`Detected agents: ${detected.length ? detected.join(', ') : 'none'}. Manifest: ${manifestPath(ctx.env)}.`);
}

export async function update(ctx: CommandContext, options: { force?: boolean; dryRun?: boolean; yes?: boolean }): Promise<void> {
  const manifest = readManifest(ctx.env);
  const all = installedTargets(manifest);
  // A copy whose folder is gone (a deleted project, a manual removal) is not recreated.
  const targets = all.filter((target) => fs.existsSync(skillRoot(target.skillsDir)));
  for (const target of all.filter((t) => !targets.includes(t))) {
    ctx.out.info(`${skillRoot(target.skillsDir)} is gone: not recreated (\`assetgen skills uninstall\` forgets it).`);
  }
  if (!targets.length) {
    ctx.out.info('Nothing to update: the skill is not installed. Run `assetgen install`.');
    ctx.out.document({ action: 'update', dryRun: Boolean(options.dryRun), changed: false, targets: [], files: [] });
    return;
  }
  const plan = planInstall(targets, renderFor(ctx), manifest, Boolean(options.force));
  await carryOut(
    ctx,
    plan,
    { action: 'update' },
    { dryRun: options.dryRun, confirm: ctx.interactive && !options.yes, upToDate: 'Everything is up to date.' },
  );
}
