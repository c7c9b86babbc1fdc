// A command is a computation and its presentations. `run` computes the result — the object
// `--json` prints and an MCP tool returns as structuredContent — printing only progress, prompts and
// warnings on the way; `render` shows that result to people; `settle` turns an outcome the result
// holds (a build's failed or capped assets) into the error, and so the exit code, it stands for.
// The CLI presents a result with `present`; the MCP server takes the result itself.
import type { CommandContext } from './context.js';

/** A JSON object: what `--json` prints. */
export type CommandResult = object;

export interface Command<A extends unknown[], R extends CommandResult> {
  run(ctx: CommandContext, ...args: A): Promise<R>;
  /** People's view: results on stdout (ignored with --json), notes on stderr. Runs before the --json document. */
  render(ctx: CommandContext, result: R, ...args: A): void;
  /** Throws the error the result's outcome stands for, after the result was shown. */
  settle?(ctx: CommandContext, result: R, ...args: A): void;
}

/** The same type, in a place TypeScript does not infer from (NoInfer on a rest tuple breaks its arity check). */
type Later<T> = T extends unknown ? T : never;

/** Declares a command (the type parameters are inferred from `run`). */
export function command<A extends unknown[], R extends CommandResult>(spec: {
  run(ctx: CommandContext, ...args: A): Promise<R>;
  render(ctx: CommandContext, result: NoInfer<R>, ...args: Later<A>): void;
  settle?(ctx: CommandContext, result: NoInfer<R>, ...args: Later<A>): void;
}): Command<A, R> {
  return spec;
}

/** The CLI's presentation: people's lines, the one --json document, then the outcome's exit. */
export function present<A extends unknown[], R extends CommandResult>(
  ctx: CommandContext,
  cmd: Command<A, R>,
  result: R,
  ...args: A
): void {
  cmd.render(ctx, result, ...args);
  ctx.out.document(result);
  cmd.settle?.(ctx, result, ...args);
}

/** Runs a command and presents its result, as the command line does. */
export async function runAndPresent<A extends unknown[], R extends CommandResult>(
  ctx: CommandContext,
  cmd: Command<A, R>,
  ...args: A
): Promise<void> {
  present(ctx, cmd, await cmd.run(ctx, ...args), ...args);
}
