// How a line of trouble on stderr starts: `error: …` and `warning: …`, lowercase, as commander
// (the parser's own usage errors), git and cargo print them, so every such line reads the same
// whoever wrote it: the command table (program.cts), the executor's failures (cli/execute.ts), a
// build's follow-up errors and every warning (ui/output.ts). The words live here only. CommonJS,
// as the command table bundles it; the styles are the caller's (none: plain text).

export const ERROR_LABEL = 'error:';
export const WARNING_LABEL = 'warning:';

/** The colours a label is drawn in: a chalk instance fits, and so does ui/output.ts's plain style. */
interface LabelStyle {
  bold(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
}

/** `error: <message>`, the label bold red when `style` draws colours. */
export function errorLine(message: string, style?: LabelStyle): string {
  return `${style ? style.bold(style.red(ERROR_LABEL)) : ERROR_LABEL} ${message}`;
}

/** `warning: <message>`, the label yellow when `style` draws colours. */
export function warningLine(message: string, style?: LabelStyle): string {
  return `${style ? style.yellow(WARNING_LABEL) : WARNING_LABEL} ${message}`;
}
