// The tools' outputSchemas against the TypeScript types of the results they describe. The compiler
// checks these (`npm run typecheck`, part of `npm test`): each command's result fits its tool's
// schema, the build's outcome is the pipeline's closed union, and the tool shell refuses a body
// whose result does not fit. The runtime half checks the JSON Schema a client is sent.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Command } from '../../src/cli/command.js';
import type { agents } from '../../src/commands/agents.js';
import type { generate } from '../../src/commands/generate.js';
import type { jobs } from '../../src/commands/jobs.js';
import type { build } from '../../src/commands/project/build.js';
import type { pick } from '../../src/commands/project/pick.js';
import type { takes } from '../../src/commands/project/takes.js';
import type * as runs from '../../src/commands/runs.js';
import type * as video from '../../src/commands/video.js';
import type { runWorkflow } from '../../src/commands/workflows.js';
import { OUTPUT } from '../../src/mcp/schemas.js';
import { z } from '../../src/mcp/sdk.js';
import type { Declared, defineTool } from '../../src/mcp/tool.js';
import { ASSET_OUTCOMES, type AssetOutcome, type AssetResult, type BuildTotals } from '../../src/pipeline/outcome.js';

/** What a tool returns of a command: its result's document (the result itself, or its one projection). */
type ResultOf<C> = C extends Command<never, infer _R, infer D> ? D : never;
type Fits<S extends z.ZodType> = Declared<z.infer<S>>;

describe('output schemas and result types', () => {
  it("each command's result fits the outputSchema of the tool that returns it (compile time)", () => {
    // `never` would fit anything: each result type is a real one.
    expectTypeOf<ResultOf<typeof generate>>().not.toBeNever();
    expectTypeOf<ResultOf<typeof build>>().not.toBeNever();
    expectTypeOf<ResultOf<typeof runs.wait>>().not.toBeNever();
    expectTypeOf<ResultOf<typeof generate>>().toExtend<Omit<Fits<typeof OUTPUT.generate_image>, 'path' | 'generationId'>>();
    expectTypeOf<ResultOf<typeof agents>>().toExtend<Fits<typeof OUTPUT.list_agents>>();
    expectTypeOf<ResultOf<typeof runWorkflow>>().toExtend<Fits<typeof OUTPUT.job>>();
    expectTypeOf<ResultOf<typeof runs.wait>>().toExtend<Fits<typeof OUTPUT.job>>();
    expectTypeOf<ResultOf<typeof runs.get>>().toExtend<Fits<typeof OUTPUT.poll>>();
    expectTypeOf<ResultOf<typeof video.create>>().toExtend<Fits<typeof OUTPUT.job>>();
    expectTypeOf<ResultOf<typeof video.wait>>().toExtend<Fits<typeof OUTPUT.job>>();
    expectTypeOf<ResultOf<typeof video.get>>().toExtend<Fits<typeof OUTPUT.poll>>();
    expectTypeOf<ResultOf<typeof jobs>>().toExtend<Omit<Fits<typeof OUTPUT.list_jobs>, 'jobs'>>();
    expectTypeOf<ResultOf<typeof build>>().toExtend<Fits<typeof OUTPUT.build>>();
    expectTypeOf<ResultOf<typeof takes>>().not.toBeNever();
    expectTypeOf<ResultOf<typeof takes>>().toExtend<Fits<typeof OUTPUT.list_takes>>();
    expectTypeOf<ResultOf<typeof pick>>().toExtend<Fits<typeof OUTPUT.pick_variant>>();
  });

  it("the build's outcome is the pipeline's closed union, and its totals count each member (compile time and in the JSON Schema)", () => {
    type Item = Fits<typeof OUTPUT.build>['items'][number];
    expectTypeOf<NonNullable<Item['outcome']>>().toEqualTypeOf<AssetOutcome>();
    expectTypeOf<AssetResult['outcome']>().toEqualTypeOf<NonNullable<Item['outcome']>>();
    expectTypeOf<keyof NonNullable<Fits<typeof OUTPUT.build>['totals']>>().toEqualTypeOf<keyof BuildTotals>();

    const schema = z.toJSONSchema(OUTPUT.build) as any;
    expect(schema.properties.items.items.properties.outcome.enum).toEqual([...ASSET_OUTCOMES]);
    expect(Object.keys(schema.properties.totals.properties).sort()).toEqual([...ASSET_OUTCOMES, 'assets', 'credits'].sort());
  });

  it('the tool shell refuses a body whose result does not fit its outputSchema (compile time)', () => {
    // Never called: the compiler is the test. Without the error below, `@ts-expect-error` itself fails the type check.
    const declare = (register: typeof defineTool) =>
      register(undefined as never, undefined as never, 'wrong', {
        title: 'wrong',
        description: 'a build item with an outcome outside the union',
        input: {},
        output: OUTPUT.build,
        kind: {},
        // @ts-expect-error 'rebuilt' is not an AssetOutcome
        call: async () => ({ result: { manifest: 'm', lock: 'l', service: 's', items: [{ id: 'a', status: 'new', outcome: 'rebuilt' }] } }),
      });
    expect(typeof declare).toBe('function');
  });
});
