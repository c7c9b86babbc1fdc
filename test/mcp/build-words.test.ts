// The texts of build, list_takes and pick_variant over MCP name the tools' own arguments (`ids`,
// `more`, `dry_run`, `check`) and the other tools (`build`, `check_assets`), never the command
// line's flags or commands (docs/mcp.md): only `assetgen auth login …` and a `resume` field are
// command lines. The same calls on the command line keep its words to the letter (flags, `assetgen
// build`). The real `assetgen mcp` (stdio), and the built CLI in process, against the bundled mock.
import fs from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, parseJson, runInProcess, tempHome } from '../support/cli.js';
import { useMcpProject } from '../support/mcp.js';

const MANIFEST = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: potion, prompt: a potion, variants: 3 }
  - { id: gem-red, prompt: a red gem }
`;

const project = useMcpProject(MANIFEST);

/** A flag of the command line: `--more`, `--dry-run`, ` -o`, `-f <path>`. */
const CLI_FLAG = /(?:^|[\s(`'"])(?:--[a-z][a-z-]*|-o\b|-f <)/;
/** A command of the command line other than `assetgen auth login` (`assetgen.yaml` is a file, not a command). */
const CLI_COMMAND = /\bassetgen (?!auth login\b)/;

interface Texts {
  message: string;
  hint?: string;
  why: string[];
}

/** The error's message and hint, and every item's `why` (the result beside the error, when there is one). */
function texts(result: CallToolResult): Texts {
  const documents = result.content.flatMap((item) => (item.type === 'text' ? [JSON.parse(item.text) as Record<string, any>] : []));
  const error = documents[0]?.error as { message: string; hint?: string } | undefined;
  expect(error, JSON.stringify(documents)).toBeDefined();
  const items = (result.structuredContent?.items ?? []) as { why?: string[] }[];
  return { message: error!.message, hint: error!.hint, why: items.flatMap((item) => item.why ?? []) };
}

/** Calls a tool that must fail; its message, hint and items' reasons name no CLI flag or command. */
async function failing(tool: string, args: Record<string, unknown>): Promise<Texts> {
  const { result } = await project.mcp.call(tool, args);
  const call = `${tool} ${JSON.stringify(args)}`;
  expect(result.isError, call).toBe(true);
  const found = texts(result);
  const commandLine = [found.message, found.hint ?? '', ...found.why].filter((text) => CLI_FLAG.test(text) || CLI_COMMAND.test(text));
  expect(commandLine, call).toEqual([]);
  return found;
}

const charges = async (): Promise<number> => (await project.mock.state()).ledger.filter((entry) => entry.amount < 0).length;

describe('build, list_takes and pick_variant speak in tool arguments', () => {
  it('build: `more` without `ids`, `check` with `dry_run`, refused before anything is paid', async () => {
    const more = await failing('build', { more: 2, dry_run: true });
    expect(more.message).toBe('`more: 2` makes more takes of the assets you name (a paid call each): give their ids or a glob in `ids`.');
    expect(more.hint).toBe('For example: call `build` with {"ids": ["sword"], "more": 2, "dry_run": true}');

    const check = await failing('build', { check: true, dry_run: true });
    expect(check.message).toBe('`check: true` measures the outputs a build leaves, and `dry_run: true` builds nothing: use one at a time.');
    expect(check.hint).toBe('Call `check_assets` to hold the outputs as they are to their rules.');
    expect(await charges()).toBe(0);
  });

  it('list_takes and pick_variant of a single-take asset: how to get takes, with `build`', async () => {
    const built = await project.mcp.call('build', {});
    expect(built.result.isError, JSON.stringify(built.json)).toBeFalsy();

    const listed = await failing('list_takes', { id: 'gem-red' });
    expect(listed.message).toMatch(/^"gem-red" has no takes in assetgen\.lock \(it was built as a single take\)/);
    expect(listed.hint).toBe('An image asset gets takes from `variants: N` in assetgen.yaml, then `build` with {"ids": ["<id>"]}.');

    const picked = await failing('pick_variant', { id: 'gem-red', take: 1 });
    expect(picked.message).toBe('"gem-red" has no takes to pick from.');
    expect(picked.hint).toBe(
      'Give it `variants: N` in assetgen.yaml and build it, or ask for more with `build` with {"ids": ["gem-red"], "more": 2}.',
    );
  });

  it('an asset with takes nobody picked: build and its dry run say to call `pick_variant`, not `assetgen pick`', async () => {
    const built = await project.mcp.call('build', {});
    expect(built.result.isError, JSON.stringify(built.json)).toBeFalsy();
    const note = 'take 1 used until you pick (`pick_variant` with {"id": "potion", "take": <k>})';
    const potion = (built.json.items as { id: string; unpicked?: string; why?: string[] }[]).find((item) => item.id === 'potion');
    expect(potion?.unpicked ?? potion?.why?.at(-1)).toBe(note);
    const planned = await project.mcp.call('build', { dry_run: true });
    const planItem = (planned.json.items as { id: string; reasons?: string[]; why?: string[] }[]).find((item) => item.id === 'potion');
    expect(JSON.stringify(planItem)).toContain(JSON.stringify(note).slice(1, -1));
    expect(JSON.stringify([built.json, planned.json])).not.toMatch(CLI_COMMAND);

    // A take whose file is gone: no tool regenerates by force, so the hint is the command, for a terminal.
    const take2 = (potion as unknown as { takes: { k: number; file: string }[] }).takes.find((take) => take.k === 2)!;
    fs.rmSync(path.join(project.home.cwd, take2.file));
    const { result } = await project.mcp.call('pick_variant', { id: 'potion', take: 2 });
    expect(result.isError).toBe(true);
    expect(texts(result).hint).toBe(
      'Pick another of takes 1 to 3, or make it again (paid): ask the person to run `assetgen build potion --force` in a terminal (no tool regenerates by force).',
    );
  });

  it('build with `more` the balance cannot pay: the item says `more: 1`; message and hint name no command line', async () => {
    if (!fs.existsSync(path.join(project.home.cwd, 'assetgen.lock')))
      expect((await project.mcp.call('build', {})).result.isError).toBeFalsy();
    await project.mock.config({ credits: 5 });
    const refused = await failing('build', { ids: ['potion'], more: 1 });
    expect(refused.why).toEqual(['`more: 1`: take 4 to make, a paid call each (3 takes kept)']);
    await project.mock.config({ credits: 1000 });
  });

  it('build whose paid call lost its answer: the hint says to call `build` again to resume it', async () => {
    await project.mock.config({ faults: { rate: 1, kinds: ['500'] } });
    try {
      const lost = await failing('build', { ids: ['potion'], more: 1 });
      expect(lost.message).toBe('1 asset failed: potion.');
      expect(lost.hint).toMatch(/^Paid work is recorded in assetgen\.lock: call `build` again to resume it /);
    } finally {
      await project.mock.config({ faults: { rate: 0 } });
    }
  });
});

describe('the command line keeps its flags and commands', () => {
  // A project of its own: its lock owes nothing to the MCP calls above.
  let own: ReturnType<typeof tempHome>;
  beforeAll(async () => {
    own = tempHome();
    fs.writeFileSync(path.join(own.cwd, 'assetgen.yaml'), MANIFEST);
    await project.mock.config({ credits: 1000 });
  });
  afterAll(() => own.remove());
  const cli = (args: string[]) =>
    runInProcess([...args, '--json'], {
      env: { ...own.env, ASSETGEN_BASE_URL: project.mock.url, ASSETGEN_API_KEY: project.mock.apiKey },
      cwd: own.cwd,
    });

  it('the same refusals, hints and reasons, in flags and `assetgen` commands', async () => {
    const more = jsonError(await cli(['build', '--more', '2', '--dry-run']));
    expect(more.message).toBe('--more 2 makes more takes of the assets you name (a paid call each): give their ids or a glob.');
    expect(more.hint).toBe('For example: assetgen build sword --more 2 --dry-run');
    const check = jsonError(await cli(['build', '--check', '--dry-run']));
    expect(check.message).toBe('--check measures the outputs a build leaves, and --dry-run builds nothing: use one at a time.');
    expect(check.hint).toBe('Run `assetgen check` to hold the outputs as they are to their rules.');

    expect((await cli(['build'])).code).toBe(0);
    expect(jsonError(await cli(['takes', 'gem-red'])).hint).toBe(
      'An image asset gets takes from `variants: N` in assetgen.yaml, then `assetgen build <id>`.',
    );
    expect(jsonError(await cli(['pick', 'gem-red', '1'])).hint).toBe(
      'Give it `variants: N` in assetgen.yaml and build it, or ask for more with `assetgen build gem-red --more 2`.',
    );

    await project.mock.config({ credits: 5 });
    const refused = await cli(['build', 'potion', '--more', '1']);
    expect(parseJson(refused).items.map((item: { why: string[] }) => item.why)).toEqual([
      ['--more 1: take 4 to make, a paid call each (3 takes kept)'],
    ]);
    await project.mock.config({ credits: 1000 });

    await project.mock.config({ faults: { rate: 1, kinds: ['500'] } });
    try {
      expect(jsonError(await cli(['build', 'potion', '--more', '1'])).hint).toBe(
        'Paid work is recorded in assetgen.lock: run `assetgen build` again to resume it (no second charge for a job with an id; one without is asked again with its idempotency key, free if the service honours Idempotency-Key); the others are tried afresh.',
      );
    } finally {
      await project.mock.config({ faults: { rate: 0 } });
    }
  });
});
