// The one shell of every tool: its declaration (title, schemas, annotations) and its call — the
// output paths it takes checked by the confinement rule, then its body run by runCall (a context
// of its own, errors as tool results in the tool's own words, structuredContent, progress, the
// wait budget). A tool says only what is its own: its schemas, its paths and its body.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ShapeOutput, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { CommandContext } from '../cli/context.js';
import { mcpFrontEnd } from '../cli/front-end.js';
import { runCall, type CallOutcome, type Extra, type ServerScope } from './call.js';
import { confineOutput } from './paths.js';
import { z } from './sdk.js';

/** An output path argument: a file or a folder (a trailing slash or an existing folder), or always a folder. */
export type PathArgument = 'file-or-folder' | 'folder';

export interface ToolSpec<Input extends ZodRawShapeCompat, Output extends z.ZodObject> {
  title: string;
  description: string;
  input: Input;
  /** The shape of the result: the body's result type must fit it (checked by the compiler), and the SDK checks each answer. */
  output: Output;
  /** What the tool may do (common.ts: READ_ONLY, PAID, FOLLOW, LOCAL). */
  kind: ToolAnnotations;
  /** Arguments that name where files go: confined to the working directory before the body runs (and again by the save). */
  paths?: { [Name in keyof Input]?: PathArgument };
  /** Waiting tools: how long the call may wait before it answers with the job and how to resume it. */
  waitBudgetMs?(args: ShapeOutput<Input>): number | undefined;
  /** The call itself, with the path arguments as confined. */
  call(ctx: CommandContext, args: ShapeOutput<Input>, extra: Extra): Promise<CallOutcome<Declared<z.infer<Output>>>>;
}

/**
 * The fields a schema declares, without the index signatures of its loose objects (a service
 * record's own fields pass through): what a result must have, in the types it must have them. A
 * TypeScript interface has no index signature, so it could never match a loose object's type as is.
 */
export type Declared<T> = T extends readonly (infer Item)[]
  ? Declared<Item>[]
  : T extends object
    ? { [Key in keyof T as string extends Key ? never : Key]: Declared<T[Key]> }
    : T;

/** Registers one tool on the server, through the shell. */
export function defineTool<Input extends ZodRawShapeCompat, Output extends z.ZodObject>(
  server: McpServer,
  scope: ServerScope,
  name: string,
  spec: ToolSpec<Input, Output>,
): void {
  // Messages of its calls name this tool's own arguments (src/cli/front-end.ts).
  const frontEnd = mcpFrontEnd(name, Object.keys(spec.input));
  server.registerTool(
    name,
    {
      title: spec.title,
      description: spec.description,
      // Strict: an argument the tool does not have (a typo of `overwrite`, say) is refused before
      // anything is paid, never silently dropped.
      inputSchema: z.strictObject(spec.input),
      outputSchema: spec.output,
      annotations: { ...spec.kind, title: spec.title },
    },
    // The SDK types a shape's arguments the way ToolSpec does (ShapeOutput); its overloads lose that here.
    ((args: ShapeOutput<Input>, extra: Extra) =>
      runCall(scope, extra, (ctx) => spec.call(ctx, confinedPaths(spec, args, ctx.cwd, scope.allowOutside), extra), {
        waitBudgetMs: spec.waitBudgetMs?.(args),
        frontEnd,
      })) as Parameters<McpServer['registerTool']>[2],
  );
}

/** The arguments with each path argument checked (relative to the working directory) and a folder's kept as a folder. */
function confinedPaths<Input extends ZodRawShapeCompat>(
  spec: Pick<ToolSpec<Input, z.ZodObject>, 'paths'>,
  args: ShapeOutput<Input>,
  cwd: string,
  allowOutside: boolean,
): ShapeOutput<Input> {
  const confined: Record<string, unknown> = { ...args };
  for (const [name, kind] of Object.entries(spec.paths ?? {})) {
    const value = confineOutput(confined[name] as string | undefined, cwd, allowOutside, name);
    // A folder argument means a folder with or without its trailing slash: `assets` and `assets/` alike.
    confined[name] = kind === 'folder' && value !== undefined && !/[\\/]$/.test(value) ? `${value}/` : value;
  }
  return confined as ShapeOutput<Input>;
}
