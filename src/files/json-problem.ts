// Why a file assetgen reads (a lock, the install manifest) is not JSON, for an error message. Shared
// by the build and the installer, like the rest of src/files: it imports nothing of theirs.

const ESCAPED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * What JSON.parse said of `text`, on one printable line. V8 quotes a few characters of the input
 * as they are (`Unexpected token 'g', "garbage{<newline>" is not valid JSON`): a line break, a tab
 * or an escape sequence there is written as a JSON escape (`"garbage{\n"`). A position is given
 * its line and column, as editors count them.
 */
export function jsonSyntaxProblem(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const printable = message.replace(
    // eslint-disable-next-line no-control-regex -- exactly the characters a terminal must not get raw
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) => ESCAPED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const at = /\bat position (\d+)/.exec(message);
  if (!at || /\bline \d+/.test(message)) return printable;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${printable} (line ${line}, column ${column})`;
}
