// `assetgen install` / `assetgen skills install`: which agents and scope (asked on a terminal,
// flags otherwise), the key if none is stored, then the plan.
import type { CommandContext } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { checkbox, input, password, select } from '../../cli/prompt.js';
import { verifyCredential } from '../../cli/verify-credential.js';
import { baseUrlProblem } from '../../cli/value-checks.cjs';
import { maskSecret, redactUrl } from '../../client/redact.js';
import { credentialsFilePath, ENV } from '../../config/credentials.js';
import { CODING_AGENTS, detectAgents, type AgentRecord, type Scope } from '../../installer/agents.js';
import { planInstall } from '../../installer/install.js';
import { readManifest } from '../../installer/manifest.js';
import { installedDirs, resolveTargets } from '../../installer/targets.js';
import { agentsByIds, knownAgents, parseScope, projectRoot } from './options.js';
import { mcpInstallPlan } from './mcp.js';
import { command } from '../../cli/command.js';
import { carryOut, renderFor, shownAsItRan, type InstallResult } from './plan.js';

export interface InstallOptions {
  agent: string[];
  allDetected?: boolean;
  scope?: string;
  projectDir?: string;
  yes?: boolean;
  dryRun?: boolean;
  force?: boolean;
  /** Also register the MCP server (`assetgen mcp`) in each agent's MCP configuration. */
  mcp?: boolean;
}

/** The extra choice of the interactive agent list: register the MCP server too. */
const MCP_CHOICE = 'mcp';

export const install = command({ run: installSkill, render: shownAsItRan });

async function installSkill(ctx: CommandContext, options: InstallOptions): Promise<InstallResult> {
  const flagScope = parseScope(options.scope);
  if (flagScope === 'user' && options.projectDir) throw new UsageError('--project-dir applies to --scope project only.');
  const projectDir = projectRoot(ctx, options.projectDir);
  const chosen = await chooseAgents(ctx, options);
  const agents = chosen.filter((choice): choice is AgentRecord => choice !== MCP_CHOICE);
  const mcp = Boolean(options.mcp) || chosen.includes(MCP_CHOICE);
  if (!agents.length) throw new UsageError('Choose at least one coding agent.');
  const scope = flagScope ?? (ctx.interactive && !options.yes ? await askScope(ctx, projectDir) : 'project');

  const skipAsking = Boolean(options.dryRun || options.yes) || !ctx.interactive;
  const baseUrl = await askForBaseUrl(ctx, skipAsking);
  const key = await askForKey(ctx, skipAsking, baseUrl);
  if (skipAsking) reportMissingSetup(ctx);

  const manifest = readManifest(ctx.env);
  const targets = resolveTargets(agents, scope, projectDir, ctx.env, installedDirs(manifest, scope, projectDir));
  const plan = planInstall(targets, renderFor(ctx, baseUrl), manifest, Boolean(options.force));
  const credentials = [...(baseUrl ? [`base URL ${redactUrl(baseUrl)}`] : []), ...(key ? [`API key ${maskSecret(key)}`] : [])];
  return carryOut(
    ctx,
    plan,
    { action: 'install', scope },
    {
      dryRun: options.dryRun,
      confirm: ctx.interactive && !options.yes,
      upToDate: 'Already installed and up to date: nothing to do.',
      // What was typed at the prompts is stored with the plan, not before it: backing out at the
      // confirmation (or Ctrl-C anywhere) leaves no file and no credential behind.
      alsoStores: credentials.length ? { where: credentialsFilePath(ctx.env), what: credentials } : undefined,
      accepted: credentials.length
        ? async () => {
            // Loaded only to write: conf and its JSON-schema validator take ~0.1 s of CPU, which an
            // install that stores nothing (or is backed out of) does not pay.
            const { CredentialStore } = await import('../../config/credential-store.js');
            const store = new CredentialStore(ctx.env);
            store.update({ ...(key ? { apiKey: key } : {}), baseUrl: baseUrl ?? ctx.globals.baseUrl });
            ctx.out.info(`Stored the ${credentials.join(' and the ')} in ${store.path}.`);
          }
        : undefined,
      extra: mcp ? mcpInstallPlan(ctx, agents, scope, projectDir, Boolean(options.force)) : undefined,
    },
  );
}

async function chooseAgents(ctx: CommandContext, options: InstallOptions): Promise<(AgentRecord | typeof MCP_CHOICE)[]> {
  const detected = detectAgents(ctx.env);
  if (options.agent.length || options.allDetected) {
    const agents = [...new Set([...agentsByIds(options.agent), ...(options.allDetected ? detected : [])])];
    if (!agents.length)
      throw new UsageError(
        '--all-detected found no coding agent on this machine.',
        `Name them with --agent <id>; known: ${knownAgents()}.`,
      );
    return agents;
  }
  if (!ctx.interactive) {
    // Never guess (and never "every agent"): a script must say which agents it means.
    throw new UsageError(
      'Which coding agents? There is no terminal to ask on (or --no-input was given), and --yes never means "all of them".',
      `Pass --agent <id> (repeatable) or --all-detected, and --scope project|user. Known agents: ${knownAgents()}.`,
    );
  }
  return checkbox<AgentRecord | typeof MCP_CHOICE>(
    ctx,
    'Install the assetgen skill for which coding agents?',
    [
      ...CODING_AGENTS.map((agent) => ({
        name: `${agent.name}${detected.includes(agent) ? ' (detected)' : ''}`,
        value: agent,
        checked: detected.includes(agent),
      })),
      { name: 'Also register the assetgen MCP server with them (assetgen mcp)', value: MCP_CHOICE, checked: Boolean(options.mcp) },
    ],
    { required: true, untouched: 'changed' },
  );
}

function askScope(ctx: CommandContext, projectDir: string): Promise<Scope> {
  return select<Scope>(
    ctx,
    'Install for this project or for your user?',
    [
      { name: `This project (${projectDir})`, value: 'project' },
      { name: 'My user (every project)', value: 'user' },
    ],
    'changed',
  );
}

/** On a terminal, when no service URL is configured, asks for it (validated; empty skips). */
async function askForBaseUrl(ctx: CommandContext, skip: boolean): Promise<string | undefined> {
  if (skip || ctx.credentials().baseUrl) return undefined;
  const url = (
    await input(ctx, 'Service URL (the base URL of the asset service, e.g. https://assets.example.com; empty to skip):', {
      untouched: 'changed',
      validate: (value) => (value.trim() === '' ? true : (baseUrlProblem(value) ?? true)),
    })
  ).trim();
  return url || undefined;
}

/**
 * On a terminal, when no credentials exist yet, asks for the key (masked) for the CLI and checks it
 * exactly as `auth login` does, before the plan is shown: a key the service refuses is never stored
 * (exit 4, nothing written). Without a service URL it cannot be checked, so it is not asked for.
 */
async function askForKey(ctx: CommandContext, skip: boolean, typedBaseUrl: string | undefined): Promise<string | undefined> {
  const creds = ctx.credentials();
  if (skip || creds.apiKey || creds.sessionCookie) return undefined;
  const baseUrl = typedBaseUrl ?? creds.baseUrl?.value;
  if (!baseUrl) {
    ctx.out.info('No service URL, so no API key is asked for (a key is checked against the service before it is stored).');
    ctx.out.info('Run `assetgen auth login --base-url <url>` before your agent uses the skill.');
    return undefined;
  }
  const key = (
    await password(ctx, 'API key for the CLI (stored in your user config, never in the skill; empty to skip):', 'changed')
  ).trim();
  if (!key) return undefined;
  await verifyCredential(
    ctx,
    { baseUrl, apiKey: key },
    'Check the service URL and try `assetgen install` again, or skip the key and run `assetgen auth login` later.',
  );
  return key;
}

/** Without prompts, names what the CLI still needs before an agent can use the skill. */
function reportMissingSetup(ctx: CommandContext): void {
  const creds = ctx.credentials();
  const missing = [
    ...(creds.baseUrl ? [] : [`the service URL (--base-url or ${ENV.baseUrl})`]),
    ...(creds.apiKey || creds.sessionCookie ? [] : [`credentials (${ENV.apiKey}, or \`assetgen auth login\`)`]),
  ];
  if (missing.length)
    ctx.out.info(
      `Not configured yet: ${missing.join(' and ')}. Run \`assetgen auth login --base-url <url>\` before your agent uses the skill.`,
    );
}
