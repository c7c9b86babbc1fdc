// A paid call whose answer is lost advises asking again with the same Idempotency-Key, except on
// the command line's in-process mock (--mock): it ends with the command, and the next --mock is a
// fresh one that never saw the key, so the advice says nothing was charged for real instead.
import { describe, expect, it } from 'vitest';
import { ConnectionError } from '../../src/client/errors.js';
import type { CommandContext } from '../../src/cli/context.js';
import { CLI, mcpFrontEnd } from '../../src/cli/front-end.js';
import { paidCall } from '../../src/cli/idempotency.js';
import { JobJournal } from '../../src/config/journal.js';

function contextOf(mock: boolean, frontEnd = CLI): CommandContext {
  return {
    globals: { mock },
    frontEnd,
    signal: new AbortController().signal,
    journal: new JobJournal({}, { memoryOnly: true }),
  } as unknown as CommandContext;
}

const lost = (ctx: CommandContext) =>
  paidCall(ctx, 'key-1', () => Promise.reject(new ConnectionError('The connection closed before the answer was complete.'))).catch(
    (error: unknown) => error as ConnectionError,
  );

describe('the advice after a lost answer', () => {
  it('on a service: ask again with the same key', async () => {
    const error = await lost(contextOf(false));
    expect(error.hint).toMatch(/^The service may have done this \(and charged for it\) .* with --idempotency-key key-1 to get that result/);
  });

  it('on the command line’s --mock: nothing charged for real, no key to reuse', async () => {
    const error = await lost(contextOf(true));
    expect(error.hint).toMatch(
      /^This call went to the bundled mock \(--mock\), which ends with this command: nothing was charged for real/,
    );
    expect(error.hint).not.toContain('--idempotency-key');
  });

  it('an MCP server’s mock lives on: the same call with the key gets the same answer', async () => {
    const error = await lost(contextOf(true, mcpFrontEnd('generate_image', ['idempotency_key'])));
    expect(error.hint).toContain('`idempotency_key: "key-1"`');
  });
});
