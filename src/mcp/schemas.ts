// Each tool's outputSchema: the shape of the command result it returns as structuredContent (the
// object `assetgen <command> --json` prints). Loose objects: a service record's own fields pass
// through as the service sent them; the fields assetgen adds are typed. The SDK's client checks
// every structuredContent against these (test/mcp/structured.test.ts).
import { ASSET_OUTCOMES, type AssetOutcome } from '../pipeline/outcome.js';
import { z } from './sdk.js';

/** `unknownCharges`: polls (or attempts of them the client retried) that got no answer, whose charge is not known (`charged` is then at least what it says). */
const credits = z.object({
  charged: z.number(),
  refunded: z.number(),
  balance: z.number().nullable(),
  unknownCharges: z.number().int().positive().optional(),
});
const skipped = z.array(z.looseObject({ id: z.string().nullable(), why: z.string() }));
const media = z.object({
  path: z.string(),
  format: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
});
/** Where a trimmed picture was in the image trim saw (pipeline/records.ts TrimPlacement). */
const trimPlacement = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
  sourceWidth: z.number().int(),
  sourceHeight: z.number().int(),
});
const job = z.looseObject({ id: z.string(), kind: z.enum(['video', 'run']), resume: z.string().nullable().optional() });

/** A build's count of assets per outcome, one field for each member of the closed union. */
const outcomeCounts = Object.fromEntries(ASSET_OUTCOMES.map((outcome) => [outcome, z.number().int()])) as Record<AssetOutcome, z.ZodNumber>;

/** What every result that talked to the service carries. */
const charged = { credits, mock: z.literal(true).optional() };
/** A result that saved files: each path and its format and pixel size. */
const saved = { saved: z.array(z.string()), media: z.array(media) };
/** A wait that outlasted max_wait_seconds: the job goes on, and how to pick it up. */
const stillRunning = {
  job: job.optional(),
  state: z.string().optional(),
  message: z.string().optional(),
  resume: z.looseObject({ tool: z.string(), arguments: z.looseObject({ id: z.string() }) }).optional(),
  hint: z.string().optional(),
};

/** `assetgen check --json` (src/commands/project/check.ts CheckDocument): the figures of each output image and the rules broken. */
const checkResult = z.looseObject({
  manifest: z.string(),
  lock: z.string(),
  ok: z.boolean(),
  rules: z.record(z.string(), z.looseObject({})),
  files: z.array(
    z.looseObject({
      id: z.string(),
      path: z.string(),
      width: z.number().int(),
      height: z.number().int(),
      alpha: z.boolean(),
      fill: z.number(),
      colors: z.looseObject({ count: z.number().int(), atLeast: z.boolean() }),
      seam: z.number().optional(),
      outlier: z.looseObject({ group: z.string(), distance: z.number(), members: z.number().int(), flagged: z.boolean() }).optional(),
    }),
  ),
  unmeasured: z.array(z.looseObject({ id: z.string(), path: z.string().nullable(), problem: z.string() })),
  failures: z.array(z.looseObject({ id: z.string(), path: z.string().nullable(), rule: z.string(), message: z.string() })),
  totals: z.looseObject({ assets: z.number().int(), files: z.number().int(), unmeasured: z.number().int(), failures: z.number().int() }),
});

export const OUTPUT = {
  generate_image: z.looseObject({ ...charged, ...saved, path: z.string().optional(), generationId: z.unknown().optional() }),
  list_agents: z.looseObject({
    ...charged,
    agents: z.array(z.unknown()),
    skipped,
    source: z.enum(['service', 'cache']),
    listedAt: z.string().optional(),
    note: z.string().optional(),
  }),
  list_workflows: z.looseObject({
    ...charged,
    workflows: z.array(
      z.looseObject({
        id: z.string(),
        nodes: z.number().int(),
        overridableNodes: z.array(z.looseObject({ id: z.string() })),
      }),
    ),
    skipped,
  }),
  /** Started and not waited for (`job`), waited for (`saved`), or still running at the wait's end. */
  job: z.looseObject({
    ...charged,
    ...stillRunning,
    saved: saved.saved.optional(),
    media: saved.media.optional(),
    next: z.string().optional(),
  }),
  /** One poll: the service's record of the job. */
  poll: z.looseObject({ ...charged }),
  list_jobs: z.looseObject({
    jobs: z.array(
      z.looseObject({
        kind: z.enum(['video', 'run', 'image']),
        id: z.string(),
        state: z.string(),
        resume: z.string().nullable(),
        resumeTool: z.looseObject({ tool: z.string(), arguments: z.looseObject({}) }).nullable(),
      }),
    ),
    journal: z.string().nullable(),
    skipped,
  }),
  list_takes: z.looseObject({
    id: z.string(),
    picked: z.number().int().nullable(),
    takes: z.array(
      z.looseObject({
        k: z.number().int(),
        file: z.string(),
        picked: z.boolean(),
        state: z.string(),
        // The command line that picks the take (as in --json), and the list_takes tool's: the pick_variant call.
        pick: z.string(),
        pickTool: z
          .looseObject({ tool: z.literal('pick_variant'), arguments: z.looseObject({ id: z.string(), take: z.number().int() }) })
          .optional(),
      }),
    ),
    contactSheet: z.looseObject({ file: z.string(), layout: z.string(), width: z.number().int(), height: z.number().int() }),
  }),
  pick_variant: z.looseObject({
    id: z.string(),
    from: z.number().int(),
    picked: z.number().int(),
    take: z.string(),
    staleSheets: z.array(z.string()),
    credits: z.literal(0),
  }),
  build: z.looseObject({
    manifest: z.string(),
    lock: z.string(),
    service: z.string(),
    dryRun: z.literal(true).optional(),
    items: z.array(
      z.looseObject({
        id: z.string(),
        status: z.string(),
        outcome: z.enum(ASSET_OUTCOMES).optional(),
        // A dry run: the numbers of the takes it would make; a build: every take kept.
        takes: z
          .union([
            z.array(z.number().int()),
            z.array(z.looseObject({ k: z.number().int(), file: z.string(), credits: z.number().nullable() })),
          ])
          .optional(),
        picked: z.number().int().optional(),
        unpicked: z.string().optional(),
        // Paid work the lock holds for a later build: the command line, and the build call that resumes it.
        resume: z.string().optional(),
        resumeTool: z.looseObject({ tool: z.literal('build'), arguments: z.looseObject({ ids: z.array(z.string()) }) }).optional(),
        // Made, with something to say of it: a post step's warning (a key that left the image opaque).
        warnings: z.array(z.string()).optional(),
        // A trimmed image as assetgen wrote it: where its picture was; a sliced one's frames, each in order of `files`.
        trim: trimPlacement.optional(),
        trims: z.array(trimPlacement).optional(),
      }),
    ),
    totals: z.looseObject({ ...outcomeCounts, assets: z.number().int(), credits: z.number() }).optional(),
    counts: z.record(z.string(), z.number().int()).optional(),
    estimate: z.looseObject({ credits: z.number(), unknown: z.array(z.string()) }).optional(),
    staleSheets: z.array(z.looseObject({ id: z.string(), reason: z.string() })).optional(),
    checks: checkResult.optional(),
    credits: credits.optional(),
    mock: z.literal(true).optional(),
  }),
  check_assets: checkResult,
};
