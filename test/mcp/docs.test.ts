// docs/mcp.md stays true to the server: every tool and every argument it takes is documented, and
// the README and `assetgen mcp --help` point to it.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess, tempHome } from '../support/cli.js';
import { startMcp, type McpSession } from '../support/mcp.js';

let home: ReturnType<typeof tempHome>;
let mcp: McpSession;
beforeAll(async () => {
  home = tempHome();
  mcp = await startMcp({ env: home.env, cwd: home.cwd, args: ['--mock'] });
});
afterAll(async () => {
  await mcp.close();
  home.remove();
});

it('docs/mcp.md names every tool with its arguments and annotations kind', async () => {
  const doc = fs.readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
  const { tools } = await mcp.client.listTools();
  for (const tool of tools) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${tool.name}\` |`));
    expect(row, tool.name).toBeDefined();
    for (const argument of Object.keys(tool.inputSchema.properties ?? {}))
      expect(row, `${tool.name} ${argument}`).toContain(`\`${argument}\``);
    for (const argument of tool.inputSchema.required ?? []) expect(row, `${tool.name} ${argument}`).toContain(`**\`${argument}\`**`);
  }
  const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  expect(readme).toContain('## Use from an MCP client');
  for (const tool of tools) expect(readme).toContain(`\`${tool.name}\``);
});

it("docs/mcp.md's annotations table names every tool once, in the row of the hints it declares (the kind the tools table gives it)", async () => {
  const doc = fs.readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
  const table = doc.slice(doc.indexOf('| kind | readOnlyHint |'));
  const rows = table
    .split('\n')
    .slice(2)
    .filter((line) => line.startsWith('| '))
    .map((line) => line.split('|').map((cell) => cell.trim()));
  expect(rows.length).toBeGreaterThan(0);
  const hints = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
  const { tools } = await mcp.client.listTools();
  for (const tool of tools) {
    const named = rows.filter((row) => row[1]!.includes(`\`${tool.name}\``));
    expect(named, tool.name).toHaveLength(1);
    expect(named[0]!.slice(2, 6), tool.name).toEqual(hints.map((hint) => String(tool.annotations?.[hint])));
    // The tools table's last column names the same kind.
    const toolRow = doc.split('\n').find((line) => line.startsWith(`| \`${tool.name}\` |`))!;
    expect(toolRow.split('|').at(-2)!.trim(), tool.name).toBe(named[0]![1]!.split(' (')[0]);
  }
  const listed = rows.flatMap((row) => [...row[1]!.matchAll(/`(\w+)`/g)].map((match) => match[1]));
  expect(listed.sort()).toEqual(tools.map((tool) => tool.name).sort());
});

it("docs/mcp.md's argument types list every argument that is not a string, each under its type", async () => {
  const doc = fs.readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('Argument types'), doc.indexOf('`output` is a file, or a folder'));
  // Each item of the list, its wrapped lines joined.
  const item = (start: string): string => section.split('\n- ').find((text) => text.startsWith(start)) ?? '';
  const listed = { boolean: item('booleans:'), integer: item('whole numbers:'), number: item('numbers:'), other: item('`ids`') };
  const { tools } = await mcp.client.listTools();
  for (const tool of tools)
    for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
      const type = (schema as { type?: string }).type;
      const where = type === 'boolean' || type === 'integer' || type === 'number' ? listed[type] : type === 'string' ? '' : listed.other;
      if (type === 'string') expect(section, `${tool.name} ${name}: a string, not listed`).not.toContain(`\`${name}\``);
      else expect(where, `${tool.name} ${name} (${type})`).toContain(`\`${name}\``);
    }
});

it('docs/cli.md counts the tools right and names each one', async () => {
  const doc = fs.readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### `assetgen mcp'), doc.indexOf('\n### ', doc.indexOf('### `assetgen mcp') + 1));
  const { tools } = await mcp.client.listTools();
  const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
  words.push('thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty');
  const counted = [...section.matchAll(/\b(\w+)\s+tools\b/g)]
    .map((match) => match[1]!.toLowerCase())
    .filter((word) => words.includes(word));
  expect(counted, 'the count of tools in words').toEqual([words[tools.length]]);
  for (const tool of tools) expect(section, tool.name).toContain(`\`${tool.name}\``);
});

it('assetgen mcp --help shows how to add it to a client', async () => {
  const help = await runInProcess(['mcp', '--help'], { env: home.env, cwd: home.cwd });
  expect(help.stdout).toContain('"mcpServers"');
  expect(help.stdout).toContain('[mcp_servers.assetgen]');
  expect(help.stdout).toContain('$ assetgen mcp --mock');
});
