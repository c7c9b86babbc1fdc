/* eslint-disable no-control-regex -- a sanitiser matches control characters on purpose */
// What an error quotes of anything the service sent (a body, a message, an event): a bounded,
// printable excerpt with the size stated, so a 5 MiB page, a binary body or a flood of escape
// sequences costs one short line, the same on the terminal, in `--json` and in MCP results.
// docs/cli.md ("Limits") documents the bound.

/** At most this many bytes of what the service sent are quoted (the first ones). */
export const EXCERPT_BYTES = 1024;

/** How much the service sent: exactly `bytes`, or more (`atLeast`: reading stopped there). */
export interface SentSize {
  bytes: number;
  atLeast?: boolean;
}

// CSI (ESC [ ... final), OSC (ESC ] ... BEL/ST), other two-byte ESC sequences, and the 8-bit CSI.
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// C0 controls except tab and newline, DEL, C1 controls, and the bidirectional controls (marks,
// embeddings, overrides, isolates: text that reads in another order than it is stored).
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// What a decoder makes of bytes that are not UTF-8, and the controls above (CR, tab and newline aside).
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffd]/g;
/** Past this share of unprintable characters (and this many), a body is described as binary rather than quoted. */
const BINARY_SHARE = 0.1;
const BINARY_MIN_COUNT = 8;
/** How many of a binary body's first bytes are shown, in hex (enough to recognise gzip, PNG, …). */
const BINARY_HEAD_BYTES = 8;

/** Text with escape sequences and control characters (tab and newline aside) removed. */
export function printableText(text: string): string {
  return text.replace(ESCAPES, '').replace(CONTROLS, '');
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * A one-line quote of `data`: its first EXCERPT_BYTES bytes as text, escape sequences, control
 * characters and bytes that are not UTF-8 dropped, whitespace runs made one space, and, when that is
 * not all of it, the size: `<html>… (5,242,880 bytes; first 1,024 shown)`. A body that is mostly not
 * text is described instead: `[binary, 4,096 bytes: 1f 8b 08 00 00 00 00 00 …]` (the hex only
 * from bytes). `size` is what was sent when more than `data` (a body read only in part); by
 * default, the size of `data`.
 */
export function excerpt(data: string | Uint8Array, size?: SentSize): string {
  // The first EXCERPT_BYTES bytes of a string are within its first EXCERPT_BYTES characters.
  const bytes =
    typeof data === 'string' ? Buffer.from(data.slice(0, EXCERPT_BYTES)) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const head = bytes.subarray(0, EXCERPT_BYTES);
  const total: SentSize = size ?? { bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength };
  const whole = !total.atLeast && total.bytes <= head.length;
  const sizeText = `${total.atLeast ? 'more than ' : ''}${count(total.bytes)} bytes`;
  // `stream`: a character cut at the end of the excerpt is left out, not shown as a broken one.
  const decoded = new TextDecoder('utf-8').decode(head, { stream: !whole });
  // Escape sequences are a terminal's, not binary: left out of the count (and of the quote).
  const unescaped = decoded.replace(ESCAPES, '');
  const unprintable = unescaped.match(UNPRINTABLE)?.length ?? 0;
  if (unprintable >= BINARY_MIN_COUNT && unprintable / unescaped.length > BINARY_SHARE) {
    // Its first bytes in hex, when they are at hand as sent (text has lost them to the decoder).
    if (typeof data === 'string') return `[binary, ${sizeText}]`;
    const hex = [...head.subarray(0, BINARY_HEAD_BYTES)].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
    return `[binary, ${sizeText}: ${hex}${total.atLeast || total.bytes > BINARY_HEAD_BYTES ? ' …' : ''}]`;
  }
  const text = printableText(unescaped)
    .replace(/\ufffd/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (whole) return text || `[${sizeText}, nothing printable]`;
  return `${text}… (${sizeText}; first ${count(head.length)} shown)`;
}

/**
 * What an error keeps of something the service sent: a parsed value whose JSON fits in
 * EXCERPT_BYTES as it is (a script can still read its fields), anything else (text, bytes, a larger
 * value) as its excerpt.
 */
export function boundedRaw(raw: unknown, size?: SentSize): unknown {
  if (raw === undefined || raw === null) return raw;
  if (typeof raw === 'string' || raw instanceof Uint8Array) return excerpt(raw, size);
  const json = JSON.stringify(raw) as string | undefined;
  if (json === undefined) return undefined;
  return !size && Buffer.byteLength(json) <= EXCERPT_BYTES ? raw : excerpt(json, size);
}
