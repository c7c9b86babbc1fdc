// The manifest's checks in each front end's words (src/pipeline/validate.ts, ValidateOptions): a
// `budget` that is not a whole number of credits is "the default --max-credits" on the command
// line and, over MCP, the build tool's argument, `max_credits` — in the result of `build`, and of
// `check_assets`, `list_takes` and `pick_variant` (which have no `max_credits` of their own: the
// words name `build`). The real
// `assetgen mcp` in process (test/support/mcp.ts), and the built CLI in process, on one manifest.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, runInProcess, tempHome } from '../support/cli.js';
import { useMcpProject } from '../support/mcp.js';
import { startMock, type MockHandle } from '../support/mock.js';

const MANIFEST = `budget: -5
defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: sword, prompt: a sword }
`;
/** Where the budget's issue is, as the error lists it. */
const AT = 'assetgen.yaml:1:9: budget: must be a whole number of credits ≥ 0';
/** Any CLI flag (`--max-credits`, `-f`, …) in a text. */
const FLAG = /(?:^|[\s`(])--?[a-z][a-z-]*\b/;

describe('over MCP', () => {
  const project = useMcpProject(MANIFEST);

  for (const [tool, args] of [
    ['build', { dry_run: true }],
    ['build', {}],
    ['check_assets', {}],
    ['list_takes', { id: 'sword' }],
    ['pick_variant', { id: 'sword', take: 1 }],
  ] as const) {
    it(`${tool}${'dry_run' in args ? ' (dry_run)' : ''}: a budget that is not credits names \`max_credits\` of \`build\`, no flag`, async () => {
      const { result, json } = await project.mcp.call(tool, args);
      expect(result.isError, JSON.stringify(json)).toBe(true);
      const message = json.error.message as string;
      expect(message).toBe(`${AT} (the default \`max_credits\` of \`build\`)`);
      expect(message).not.toMatch(FLAG);
      // Nothing was sent: the manifest was refused before planning.
      expect(fs.existsSync(path.join(project.home.cwd, 'assets'))).toBe(false);
    });
  }
});

describe('on the command line', () => {
  let mock: MockHandle;
  let own: ReturnType<typeof tempHome>;
  beforeAll(async () => {
    mock = await startMock();
    own = tempHome();
    fs.writeFileSync(path.join(own.cwd, 'assetgen.yaml'), MANIFEST);
  });
  afterAll(async () => {
    await mock?.close();
    own?.remove();
  });

  for (const args of [['build', '--dry-run'], ['build'], ['check']]) {
    it(`${args.join(' ')}: the same budget says \`--max-credits\`, as it did (exit 2)`, async () => {
      const env = { ...own.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
      const human = await runInProcess(args, { env, cwd: own.cwd });
      expect(human.code, human.stderr).toBe(2);
      expect(human.stderr).toContain(`${AT} (the default --max-credits)\n`);
      const machine = await runInProcess([...args, '--json'], { env, cwd: own.cwd });
      expect(machine.code, machine.stderr).toBe(2);
      expect(jsonError(machine).message).toBe(`${AT} (the default --max-credits)`);
    });
  }
});
