// Consent to spend credits over MCP, where there is no terminal to ask on: the call states the cost
// itself in an argument (`confirm_credits: 180`, `confirm_paid_calls: 4`), or the person accepts
// an elicitation that shows it; without either nothing is sent and nothing is charged.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from './sdk.js';
import { CancelledError, UsageError } from '../cli/errors.js';
import type { Extra } from './call.js';

export interface Consent {
  /** The tool's argument that states the cost, and the value it must have. */
  argument: string;
  expected: number;
  /** What the argument was given. */
  given: number | undefined;
  /** The tool, to say how to call it again. */
  tool: string;
  /** "A video job costs 180 credits", and the amount alone: "180 credits". */
  cost: string;
  amount: string;
  /** The elicitation's question, and its checkbox's title. */
  question: string;
  title: string;
  /** What a "no" leaves: "no video job was submitted". */
  notDone: string;
}

/** The cost is confirmed by its argument, or by the person through an elicitation; else nothing is sent. */
export async function confirmCost(server: McpServer, extra: Extra, consent: Consent): Promise<void> {
  const { argument, expected, given } = consent;
  const how = `Call ${consent.tool} again with "${argument}": ${expected} to confirm the charge. Nothing was charged.`;
  if (given === expected) return;
  if (given !== undefined) throw new UsageError(`${consent.cost}, not ${given}: ${argument} must be ${expected}.`, how);
  if (server.server.getClientCapabilities()?.elicitation) {
    if (await askPerson(server, extra, consent)) return;
    throw new CancelledError(`Not confirmed: ${consent.notDone} and nothing was charged. (${consent.amount}.)`);
  }
  throw new UsageError(`${consent.cost}: confirm the charge first.`, how);
}

/**
 * Asks the person through the client (elicitation); true only for an explicit yes. Any other
 * answer is a no: a decline or cancel, an "accept" without the answer (empty content) or with one
 * the SDK finds off the requested schema (it throws), or no answer at all. A call the client
 * cancelled meanwhile stays a cancelled call.
 */
async function askPerson(server: McpServer, extra: Extra, consent: Consent): Promise<boolean> {
  try {
    const answer = await server.server.elicitInput(
      {
        message: consent.question,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: consent.title, default: false } },
          required: ['confirm'],
        },
      },
      { signal: extra.signal },
    );
    return answer.action === 'accept' && answer.content?.confirm === true;
  } catch (error) {
    if (extra.signal.aborted || !(error instanceof McpError)) throw error;
    return false;
  }
}
