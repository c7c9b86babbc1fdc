/* eslint-disable no-control-regex -- control characters are matched on purpose */
// Text from a manifest, a lock or the service written into a report, escaped for the format it is
// written in: one function per format, used by every report (the disclosure's and the plan's
// Markdown, the HTML gallery). A prompt is shown as written, never read as markup: where a
// Markdown report is rendered with HTML allowed, `<img onerror>`, `![](http://…)` or a `|` in a
// prompt must not run a script, fetch anything or cut the table.

/** Line breaks (a Markdown table row is one line), tabs, C0 and C1 controls, DEL. */
const BREAKS_AND_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** What Markdown reads inline, and the HTML that may pass through it: `&<>` as entities, the rest backslash-escaped. */
const MARKDOWN_SPECIAL = /[\\`*_[\]|~$!&<>]/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Text for a cell of a Markdown table (GitHub's), or any inline Markdown: one line (line breaks and
 * control characters become spaces), shown as written wherever it is rendered — HTML allowed or
 * not. `code`: as a code span instead (inside one nothing is markup: the fence is longer than any
 * run of backticks in the text, and a `|` is escaped, as a table needs even there) — unless the
 * text has a backslash, which no code span in a table can hold as written.
 */
export function markdownCell(text: string, form: 'text' | 'code' = 'text'): string {
  const line = text.replace(BREAKS_AND_CONTROLS, ' ');
  // A backslash cannot be written in a code span of a table (`\\|` ends the cell): such text is written as text.
  if (form === 'text' || line.includes('\\')) return line.replace(MARKDOWN_SPECIAL, (c) => ENTITIES[c] ?? `\\${c}`);
  if (!line) return '';
  const code = line.replace(/\|/g, '\\|');
  const longest = (code.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0);
  const fence = '`'.repeat(longest + 1);
  // A code span drops one space at each end when both have one; a backtick at an end needs a space beside the fence.
  const pad = /^[` ]|[` ]$/.test(code) && code.trim() ? ' ' : '';
  return `${fence}${pad}${code}${pad}${fence}`;
}

/** Text for an HTML text node or a quoted attribute: markup characters escaped, control characters dropped. */
export function escapeHtml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
