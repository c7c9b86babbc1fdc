/* eslint-disable no-control-regex -- a sanitiser matches control characters on purpose */
// Text that comes from the server (messages, names, prompts echoed back) is printed to a terminal;
// strip escape sequences and other control characters so a response can't move the cursor,
// rewrite earlier lines or set the window title.

// CSI (ESC [ ... final), OSC (ESC ] ... BEL/ST), other two-byte ESC sequences, and the 8-bit CSI.
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// C0 controls except tab and newline, DEL, and C1 controls.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function sanitizeText(text: string): string {
  return text.replace(ESCAPES, '').replace(CONTROLS, '');
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
