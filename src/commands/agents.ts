// `assetgen agents`: GET /api/ai/agents, which takes a session cookie only. Each list the service
// gives is cached (config/agents-cache.ts); with only an API key the command answers from that
// cache, labelled as such, or says exactly how to get valid ids. It never makes one up.
import { MissingCredentialsError } from '../client/errors.js';
import type { CommandContext } from '../cli/context.js';
import { command } from '../cli/command.js';
import { renderCredits, withCredits } from '../cli/charged.js';
import { warnSkipped } from '../cli/report.js';
import { printTable } from '../cli/table.js';
import { agentsCachePath, cacheAgents, readCachedAgents } from '../config/agents-cache.js';
import { normalizeAgents } from '../client/lists.js';
import { redactUrl } from '../client/redact.js';
import { sanitizeLine } from '../ui/sanitize.js';

export const agents = command({ run: listAgents, render: renderAgents });

async function listAgents(ctx: CommandContext) {
  const creds = ctx.credentials();
  if (!ctx.globals.mock && creds.baseUrl && !creds.sessionCookie && creds.apiKey) {
    // The client every command would get, built first (it sends nothing): a base URL that is not
    // an http(s) URL, or a key over plain http:// to a remote host, is refused here as there (exit 2),
    // not answered from a cache.
    await ctx.client();
    return fromCache(ctx, creds.baseUrl.value);
  }
  const client = await ctx.client('session');
  const list = await client.listAgents({ signal: ctx.signal });
  // The in-process mock's URL lives for one command: nothing to remember.
  if (!ctx.globals.mock) cacheAgents(ctx.env, client.baseUrl, list);
  return withCredits(ctx, {
    agents: list.map<unknown>((agent) => agent.raw),
    skipped: list.skipped,
    source: 'service' as const,
    listedAt: undefined as string | undefined,
    note: undefined as string | undefined,
  });
}

type AgentsResult = Awaited<ReturnType<typeof listAgents>>;

async function renderAgents(ctx: CommandContext, result: AgentsResult): Promise<void> {
  renderCredits(ctx, result);
  if (ctx.out.json) return;
  if (result.note) ctx.out.warn(result.note);
  warnSkipped(ctx, 'agent', result.skipped);
  if (!result.agents.length) {
    ctx.out.info('The service lists no agents.');
    return;
  }
  // The records read the way the client reads them (a bare id, `type` for `kind`, …).
  await printAgents(ctx, normalizeAgents(result.agents));
}

/** Only an API key: the list the service gave last time, with its date, or what to do instead. */
function fromCache(ctx: CommandContext, baseUrl: string) {
  const cached = readCachedAgents(ctx.env, baseUrl);
  if (!cached) {
    throw new MissingCredentialsError(
      `Listing agents needs a session cookie (GET /api/ai/agents); only an API key is configured, and no earlier list of ${redactUrl(baseUrl)} is cached.`,
      [
        `Generating works with the key: use an agent id the user gives you (${ctx.frontEnd.lookup('generate')}).`,
        'To list them, the user stores a session cookie once, in their own terminal: `printf %s "$COOKIE" | assetgen auth login --session`;',
        `${ctx.frontEnd.lookup('agents')} then lists the agents and caches the list in ${agentsCachePath(ctx.env)}, which later key-only runs read.`,
      ].join(' '),
    );
  }
  const note = `Cached list from ${cached.listedAt} (listing needs a session cookie, and only an API key is configured): an agent added or removed since is not shown.`;
  return withCredits(ctx, {
    agents: cached.agents,
    skipped: [],
    source: 'cache' as const,
    listedAt: cached.listedAt,
    note: note,
  });
}

async function printAgents(
  ctx: CommandContext,
  list: readonly { id: string; kind?: string; name?: string; description?: string }[],
): Promise<void> {
  const rows = list.map((agent) => [agent.id, agent.kind ?? '', agent.name ?? '', agent.description ?? ''].map(sanitizeLine));
  await printTable(ctx, ['ID', 'KIND', 'NAME', 'DESCRIPTION'], rows);
}
