// A command is a computation and its presentations. `run` computes the result, printing only
// progress, prompts and warnings on the way; `render` shows that result to people; `settle` turns
// an outcome the result holds (a build's failed or capped assets) into the error, and so the exit
// code, it stands for; `document` is the object `--json` prints and an MCP tool returns as
// structuredContent: the result itself, or a projection of it where people are shown more than the
// document says. Each reads the result alone: nothing is kept beside it. The CLI presents a result
// with `present`; the MCP server takes its document.
import type { CommandContext } from './context.js';

/** A JSON object: what `--json` prints. */
export type CommandResult = object;

export interface Command<A extends unknown[], R extends CommandResult, D extends CommandResult = R> {
  run(ctx: CommandContext, ...args: A): Promise<R>;
  /**
   * People's view: results on stdout (ignored with --json), notes on stderr. Runs before the --json
   * document. Async where it loads what only people's view needs (a table's display widths).
   */
  render(ctx: CommandContext, result: R, ...args: A): void | Promise<void>;
  /** Throws the error the result's outcome stands for, after the result was shown. */
  settle?(ctx: CommandContext, result: R, ...args: A): void;
  /** The --json document (and MCP structuredContent) of a result. */
  document(result: R): D;
}

/** The same type, in a place TypeScript does not infer from (NoInfer on a rest tuple breaks its arity check). */
type Later<T> = T extends unknown ? T : never;

/**
 * Declares a command (the type parameters are inferred from `run`, and `document`). Without
 * `document`, the result is its own document (D is then R).
 */
export function command<A extends unknown[], R extends CommandResult, D extends CommandResult = R>(spec: {
  run(ctx: CommandContext, ...args: A): Promise<R>;
  render(ctx: CommandContext, result: NoInfer<R>, ...args: Later<A>): void | Promise<void>;
  settle?(ctx: CommandContext, result: NoInfer<R>, ...args: Later<A>): void;
  document?: (result: NoInfer<R>) => D;
}): Command<A, R, D> {
  return { ...spec, document: spec.document ?? ((result: R) => result as unknown as D) };
}

/** The CLI's presentation: people's lines, the one --json document, then the outcome's exit. */
export async function present<A extends unknown[], R extends CommandResult, D extends CommandResult>(
  ctx: CommandContext,
  cmd: Command<A, R, D>,
  result: R,
  ...args: A
): Promise<void> {
  await cmd.render(ctx, result, ...args);
  ctx.out.document(cmd.document(result));
  cmd.settle?.(ctx, result, ...args);
}

/** Runs a command and presents its result, as the command line does. */
export async function runAndPresent<A extends unknown[], R extends CommandResult, D extends CommandResult>(
  ctx: CommandContext,
  cmd: Command<A, R, D>,
  ...args: A
): Promise<void> {
  await present(ctx, cmd, await cmd.run(ctx, ...args), ...args);
}
