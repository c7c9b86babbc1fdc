// What the service says (a workflow's name, description, node labels and prompts) reaches an agent
// as printable text, as it reaches a terminal: no escape sequences, control characters or
// bidirectional controls (U+202E would make a label read backwards). A hostile service, over MCP.
import { describe, expect, it } from 'vitest';
import { printableText } from '../../src/client/excerpt.js';
import { json, KEY } from '../support/http.js';
import { useMcpAgainst } from '../support/mcp.js';

const HOSTILE = 'red\u001b[31m\u202eevil\u0007\u0000 name\u2066';

const service = useMcpAgainst();

describe('service text over MCP', () => {
  it('list_workflows: names, descriptions, labels and prompts without escape, control or bidi characters', async () => {
    const mcp = await service.start(
      (_req, res) =>
        json(res, 200, {
          workflows: [
            {
              id: 'wf_one',
              name: HOSTILE,
              description: `line one\n${HOSTILE}`,
              nodes: [{ id: 'n1', label: HOSTILE, prompt: HOSTILE, overridable: true }],
            },
          ],
        }),
      { ASSETGEN_API_KEY: KEY },
    );
    const outcome = await mcp.call('list_workflows', {});
    expect(outcome.result.isError).toBeFalsy();
    const [workflow] = outcome.json.workflows as {
      name: string;
      description: string;
      overridableNodes: { label: string; defaultPrompt: string }[];
    }[];
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters on purpose
    const unprintable = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    for (const text of [
      workflow!.name,
      workflow!.description,
      workflow!.overridableNodes[0]!.label,
      workflow!.overridableNodes[0]!.defaultPrompt,
    ])
      expect(text).not.toMatch(unprintable);
    expect(workflow!.name).toContain('evil');
    expect(workflow!.description).toContain('line one');
  });

  it('printableText drops the bidirectional controls too', () => {
    expect(printableText('a\u202eb\u2066c\u200fd\u061ce')).toBe('abcde');
  });
});
