// Text that comes from the server (messages, names, prompts echoed back) is printed to a terminal;
// strip escape sequences and other control characters so a response can't move the cursor,
// rewrite earlier lines or set the window title. The rule itself is the client's (it bounds and
// cleans what errors quote of the service's answers the same way).
import { printableText } from '../client/excerpt.js';

export function sanitizeText(text: string): string {
  return printableText(text);
}

/** Single-line form: newlines and tabs become spaces (for labels and table cells). */
export function sanitizeLine(text: string): string {
  return sanitizeText(text).replace(/[\t\n]+/g, ' ');
}

/**
 * JSON text safe to print: the same data for any JSON parser, but DEL and the C1 controls (which
 * JSON.stringify leaves raw, and some terminals obey, U+009B being a CSI) written as \u escapes.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
