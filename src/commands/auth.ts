// `assetgen auth login|status|logout`. A secret is never accepted as a flag value (it would leak
// through `ps` and shell history): it comes from a masked prompt, stdin, or the environment.
import { AssetgenError, MissingCredentialsError } from '../client/errors.js';
import { UsageError } from '../cli/errors.js';
import { maskSecret, redactUrl } from '../client/redact.js';
import { ENV, type Sourced } from '../config/credentials.js';
import type { CommandContext } from '../cli/context.js';
import { password } from '../cli/prompt.js';
import { command } from '../cli/command.js';
import { renderCredits, withCredits } from '../cli/charged.js';
import { readStdin } from '../cli/stdin.js';
import { verifyCredential } from '../cli/verify-credential.js';
import { answeredByDocument, errorDocument } from '../cli/execute.js';

interface LoginOptions {
  withKey?: boolean;
  session?: boolean;
  /** false with --no-verify: store without asking the service. */
  verify?: boolean;
}

export const login = command({ run: storeCredential, render: renderCredits });

/**
 * Unverified (--no-verify), a base URL is still checked as every command will check it (a secret
 * over plain http:// to another host is refused): nothing is stored that no command would use.
 */
async function checkUsable(ctx: CommandContext, baseUrl: string | undefined, secret: { apiKey?: string; sessionCookie?: string }) {
  if (baseUrl !== undefined) await ctx.clientFor({ baseUrl, ...secret });
}

/**
 * The writable store, loaded by the commands that write: conf and its JSON-schema validator take
 * ~0.1 s of CPU to load, which `auth status` (it reads the file itself) does not pay.
 */
async function openStore(env: CommandContext['env']) {
  const { CredentialStore } = await import('../config/credential-store.js');
  return new CredentialStore(env);
}

async function storeCredential(ctx: CommandContext, options: LoginOptions) {
  if (options.withKey && options.session) throw new UsageError('Pass either --with-key or --session, not both.');
  const store = await openStore(ctx.env);
  const baseUrl = ctx.globals.baseUrl;
  const verify = options.verify !== false;
  // Verifying needs somewhere to ask; know that before reading a secret.
  const verifyAt = verify ? (baseUrl ?? ctx.env[ENV.baseUrl] ?? store.read().baseUrl) : undefined;
  if (verify && !verifyAt) {
    throw new UsageError(
      'No base URL to check the credential against.',
      'Pass --base-url <url> (it is stored too), or --no-verify to store the credential unchecked.',
    );
  }

  if (options.session) {
    const cookie = (await readSecret(ctx, 'Session cookie (name=value)', true)).trim();
    if (!cookie) throw new UsageError('No session cookie on stdin.', 'Pipe it in: `printf %s "$COOKIE" | assetgen auth login --session`.');
    if (verifyAt) await verifyCredential(ctx, { baseUrl: verifyAt, sessionCookie: cookie });
    else await checkUsable(ctx, baseUrl, { sessionCookie: cookie });
    store.update({ sessionCookie: cookie, baseUrl });
    ctx.out.info(`Stored the session cookie ${maskSecret(cookieValue(cookie))} in ${store.path}.`);
  } else {
    const key = (await readSecret(ctx, 'API key', Boolean(options.withKey))).trim();
    if (!key) throw new UsageError('No API key given.', 'Pipe it in: `printf %s "$KEY" | assetgen auth login --with-key`.');
    if (/\s/.test(key)) throw new UsageError('That does not look like an API key: it contains whitespace.');
    if (verifyAt) await verifyCredential(ctx, { baseUrl: verifyAt, apiKey: key });
    else await checkUsable(ctx, baseUrl, { apiKey: key });
    store.update({ apiKey: key, baseUrl });
    ctx.out.info(`Stored the API key ${maskSecret(key)} in ${store.path}.`);
  }
  if (baseUrl) ctx.out.info(`Base URL: ${redactUrl(baseUrl)}`);
  else if (!store.read().baseUrl && !ctx.env[ENV.baseUrl]) {
    ctx.out.warn(`No base URL is stored yet: run \`assetgen auth login --base-url <url>\` or set ${ENV.baseUrl}.`);
  }
  if (ctx.env[ENV.apiKey] || ctx.env[ENV.session]) {
    ctx.out.warn(`${ctx.env[ENV.apiKey] ? ENV.apiKey : ENV.session} is set in the environment and takes precedence over the stored value.`);
  }
  return withCredits(ctx, {
    stored: options.session ? ('sessionCookie' as const) : ('apiKey' as const),
    verified: Boolean(verifyAt),
    file: store.path,
    baseUrl: redactOptional(baseUrl ?? store.read().baseUrl),
  });
}

export const status = command({ run: readStatus, render: renderStatus, settle: settleStatus, document: statusDocument });

async function readStatus(ctx: CommandContext) {
  const creds = ctx.credentials();
  const describe = (value: Sourced<string> | undefined, secret: boolean) =>
    value
      ? { value: secret ? maskSecret(cookieValue(value.value)) : redactUrl(value.value), source: value.source, location: value.location }
      : null;
  const authenticated = Boolean(creds.apiKey || creds.sessionCookie);
  // One verdict, the same as the exit code: 0 when a command could reach the service, else the
  // error (and so the exit code) that command would give.
  const problem = await whyNotReady(ctx, authenticated);
  return {
    ready: problem === undefined,
    /** What a command would throw instead of reaching the service; the document says it as `reason`. */
    problem,
    authenticated,
    baseUrl: describe(creds.baseUrl, false),
    apiKey: describe(creds.apiKey, true),
    session: describe(creds.sessionCookie, true),
    credentialsFile: creds.file,
  };
}

/**
 * Why a command could not reach the service, or undefined when it could. Past "not logged in",
 * the commands' own path decides: the client they would get (ctx.client(): a base URL, and
 * createClient's checks of it — an absolute http(s) URL, no secret over plain http:// to a host
 * that is not loopback unless --allow-insecure-http). Building the client sends nothing. The
 * configured service is judged even under --mock (the mock would need nothing).
 */
async function whyNotReady(ctx: CommandContext, authenticated: boolean): Promise<AssetgenError | undefined> {
  if (!authenticated) {
    return new MissingCredentialsError(
      'Not logged in: no API key or session cookie is configured.',
      `Run \`assetgen auth login\`, pipe a key to \`assetgen auth login --with-key\`, or set ${ENV.apiKey}.`,
    );
  }
  try {
    await (ctx.globals.mock ? ctx.derive({ mock: false }) : ctx).client();
    return undefined;
  } catch (error) {
    if (error instanceof AssetgenError) return error;
    throw error;
  }
}

type Status = Awaited<ReturnType<typeof readStatus>>;

/** The --json document: the status, with `reason` (the error a command would give: code, message, hint, exitCode) or null. */
function statusDocument({ ready, problem, ...rest }: Status) {
  return { ready, reason: problem ? errorDocument(problem, undefined) : null, ...rest };
}

function renderStatus(ctx: CommandContext, status: Status): void {
  const line = (label: string, value: Status['apiKey']) =>
    ctx.out.result(
      `${label.padEnd(10)} ${value ? `${value.value}  (from ${value.source === 'env' ? `env ${value.location}` : value.location})` : 'not set'}`,
    );
  line('Base URL:', status.baseUrl);
  line('API key:', status.apiKey);
  line('Session:', status.session);
  ctx.out.result(`${'Ready:'.padEnd(10)} ${status.ready ? 'yes' : 'no'}`);
}

/**
 * One verdict, the same as `ready`: the exit code of the error a command would give (4: no
 * credentials or base URL; 2: a base URL every command refuses). People see its message and hint
 * on stderr; with --json the document on stdout, which carries it as `reason`, is the whole answer.
 */
function settleStatus(_ctx: CommandContext, status: Status): void {
  if (status.problem) throw answeredByDocument(status.problem);
}

export const logout = command({ run: removeCredentials, render: () => {} });

async function removeCredentials(ctx: CommandContext) {
  const store = await openStore(ctx.env);
  const had = store.read();
  store.remove(['apiKey', 'sessionCookie']);
  const removed = [had.apiKey ? 'API key' : undefined, had.sessionCookie ? 'session cookie' : undefined].filter(Boolean);
  ctx.out.info(removed.length ? `Removed the stored ${removed.join(' and ')} from ${store.path}.` : 'No stored credentials to remove.');
  const envSet = [ENV.apiKey, ENV.session].filter((name) => ctx.env[name]);
  if (envSet.length) ctx.out.warn(`${envSet.join(' and ')} ${envSet.length > 1 ? 'are' : 'is'} still set in the environment.`);
  return { removed: removed.length > 0, file: store.path };
}

/**
 * A masked prompt when stdin is a terminal; otherwise stdin is read to its end, but only when the
 * user asked for that with --with-key/--session (so a stray non-interactive run fails fast
 * instead of waiting on a pipe that never closes).
 */
async function readSecret(ctx: CommandContext, label: string, fromStdinRequested: boolean): Promise<string> {
  if (ctx.io.stdinIsTTY) {
    if (!ctx.interactive) {
      throw new UsageError(
        `Cannot prompt for the ${label} (--no-input, or no terminal on stderr).`,
        'Pipe it in with --with-key (API key) or --session (cookie).',
      );
    }
    return password(ctx, `${label}:`, 'changed');
  }
  if (!fromStdinRequested) {
    throw new UsageError('No terminal to prompt on for the API key.', 'Pipe it in: `printf %s "$KEY" | assetgen auth login --with-key`.');
  }
  return readStdin(ctx.io.stdin, undefined, ctx.signal);
}

function cookieValue(cookie: string): string {
  const eq = cookie.indexOf('=');
  return eq > 0 ? cookie.slice(eq + 1) : cookie;
}

const redactOptional = (url: string | undefined): string | null => (url === undefined ? null : redactUrl(url));
