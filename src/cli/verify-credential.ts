// Checking a credential against the service before it is stored: `auth login` and the interactive
// `install` both call this, so a key typed at either is accepted or refused the same way.
import { ApiError, MissingCredentialsError, withHint } from '../client/errors.js';
import type { CommandContext } from './context.js';
import { plural } from './credits.js';

/**
 * Asks the service with the cheapest call there is for this credential: listing workflows (no
 * generation; with a key the service may charge it, the bundled mock 1 credit; with a session,
 * nothing). Rejected → exit 4 and nothing stored; unreachable → exit 1, nothing stored.
 * `otherwise` is the caller's way round a service it cannot reach.
 */
export async function verifyCredential(
  ctx: CommandContext,
  credentials: { baseUrl: string; apiKey?: string; sessionCookie?: string },
  otherwise?: string,
): Promise<void> {
  const client = await ctx.clientFor(credentials);
  const what = credentials.apiKey ? 'API key' : 'session cookie';
  try {
    const workflows = await client.listWorkflows({ signal: ctx.signal });
    // What the check cost is the command's own credits line, said once at its end (cli/credits.ts).
    ctx.out.info(`The service accepted the ${what} (GET /api/v1/workflows: ${plural(workflows.length, 'workflow')}).`);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      throw withHint(
        new MissingCredentialsError(`The service rejected this ${what} (HTTP ${error.status}): ${error.message}`),
        'Nothing was stored. Check the value (and the base URL), then log in again.',
      );
    }
    throw withHint(error, `Nothing was stored. ${otherwise ?? `Pass --no-verify to store the ${what} without checking it.`}`);
  }
}
