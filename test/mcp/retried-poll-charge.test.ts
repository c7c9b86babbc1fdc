// The waiting tools with an API key, against a service that charges each poll as it arrives and
// drops the first one's connection: the client's retry is answered, and the call's `credits` says
// the dropped attempt's charge is not known (`unknownCharges`), in `structuredContent` (under the
// tool's outputSchema) as in the text. The ledger is the known charges plus that poll.
import { describe, expect, it } from 'vitest';
import { chargingService, dropFirstPoll, POLL_PRICE, type ChargingService } from '../support/charging-service.js';
import { KEY } from '../support/http.js';
import { useMcpAgainst, type McpSession } from '../support/mcp.js';

const mcpAgainst = useMcpAgainst();
const session = (service: ChargingService, env: NodeJS.ProcessEnv): Promise<McpSession> => mcpAgainst.start(service.handler, env);

describe('a poll retried after its first attempt was dropped (charged)', () => {
  it('wait_video: saved, credits charged 1 and unknownCharges 1; the ledger 2', async () => {
    const service = chargingService({ drop: dropFirstPoll, videoDoneAt: 2 });
    const mcp = await session(service, { ASSETGEN_API_KEY: KEY });
    const outcome = await mcp.call('wait_video', { id: 'vid_1', max_wait_seconds: 20 });
    expect(outcome.result.isError, JSON.stringify(outcome.json)).toBeFalsy();
    const document = outcome.result.structuredContent as Record<string, any>;
    expect(document.credits).toEqual({ charged: 1, refunded: 0, balance: 998, unknownCharges: 1 });
    expect(outcome.json.credits).toEqual(document.credits);
    expect(service.spent()).toBe(document.credits.charged + document.credits.unknownCharges * POLL_PRICE);
  });

  it('with a session beside the key: the polls go with it (not charged), credits exact, the ledger 0', async () => {
    const service = chargingService({ drop: dropFirstPoll, videoDoneAt: 2 });
    const mcp = await session(service, { ASSETGEN_API_KEY: KEY, ASSETGEN_SESSION: 'ag_session=sess_test' });
    const outcome = await mcp.call('wait_video', { id: 'vid_1', max_wait_seconds: 20 });
    expect(outcome.result.isError, JSON.stringify(outcome.json)).toBeFalsy();
    expect((outcome.result.structuredContent as Record<string, any>).credits).toEqual({ charged: 0, refunded: 0, balance: 1000 });
    expect(service.spent()).toBe(0);
  });
});
