// `--preview`: after a command saves images, show them inline on a terminal that can draw them.
// Called from one place (the kit's reportSaved), so every saving command gets it. Writes to stderr
// only, and only when stderr is a terminal and the run is for a person (no --json, no -q): stdout
// stays the machine-readable result. Never fails a command: whatever goes wrong is one line.
import fs from 'node:fs';
import { readRegularFileSync } from '../../files/confine.js';
import { sanitizeLine } from '../sanitize.js';
import { detectProtocol, resolveMode } from './detect.js';
import { itermImage, kittyImage, SIXEL_MAX_HEIGHT, SIXEL_MAX_WIDTH, sixelImage } from './encode.js';
import { decodeGifFirstFrame } from './gif.js';
import { downscale, PreviewError, sniff, type Pixels } from './image.js';
import type { PreviewProtocol } from './modes.cjs';
import { decodePng, encodePng } from './png.js';

export { PREVIEW_ENV } from './detect.js';

/** Where and for whom a preview is drawn; the kit fills it from the command's context. */
export interface PreviewTarget {
  stderr: NodeJS.WritableStream;
  stderrIsTTY: boolean;
  json: boolean;
  quiet: boolean;
  env: Record<string, string | undefined>;
  /** The value of --preview (`auto` when bare); undefined when the flag was not given. */
  flag?: string;
  /** A saved path as the user would type it. */
  display(file: string): string;
}

/** A command that saves a whole workflow's outputs shows the first few, not a wall of images. */
export const MAX_PREVIEWS = 4;
/** Files larger than this are not read for a preview. */
export const MAX_FILE_BYTES = 32 * 1024 * 1024;
/** A PNG this small (bytes and pixels) is sent as it is; a larger one is shrunk and re-encoded. */
const PASS_THROUGH_BYTES = 1024 * 1024;
const PASS_THROUGH_SIDE = 1024;
const SHRUNK_SIDE = 512;

export function previewSaved(target: PreviewTarget, files: readonly string[]): void {
  if (target.json || target.quiet || !target.stderrIsTTY) return;
  const note = (text: string): void => void target.stderr.write(`Preview not shown: ${sanitizeLine(text)}\n`);
  const choice = resolveMode(target.flag, target.env);
  if (choice.mode === undefined) return note(choice.note);
  if (choice.mode === 'off' || files.length === 0) return;
  const detected = choice.mode === 'auto' ? detectProtocol(target.env) : { protocol: choice.mode };
  if (!detected.protocol) return note(detected.reason);
  for (const file of files.slice(0, MAX_PREVIEWS)) {
    let bytes: string;
    try {
      bytes = renderFile(file, detected.protocol);
    } catch (error) {
      // PreviewError says what is wrong with the file; anything else is a file we could not read.
      const reason = error instanceof PreviewError ? error.message : 'could not be read';
      note(`${target.display(file)} ${reason}`);
      continue;
    }
    target.stderr.write(bytes);
  }
  if (files.length > MAX_PREVIEWS) target.stderr.write(`(${files.length - MAX_PREVIEWS} more saved files not previewed)\n`);
}

/** The escape sequence that draws `file` in `protocol`; throws PreviewError saying why not. */
export function renderFile(file: string, protocol: PreviewProtocol): string {
  const size = fs.statSync(file).size;
  if (size > MAX_FILE_BYTES) throw new PreviewError(`is too large to preview (${Math.round(size / 1024 / 1024)} MiB)`);
  // A regular file only (src/files/confine.ts): a FIFO swapped in for a saved file would block.
  return renderImage(readRegularFileSync(file), protocol);
}

/**
 * PNG and GIF (first frame) in each protocol. Every file is decoded first, even when its own bytes
 * are sent (a small PNG to kitty or iTerm2): a file that is not what it claims never reaches the
 * terminal's image decoder.
 */
export function renderImage(bytes: Uint8Array, protocol: PreviewProtocol): string {
  const format = sniff(bytes);
  const image: Pixels = format === 'png' ? decodePng(bytes) : decodeGifFirstFrame(bytes);
  if (protocol === 'sixel') return sixelImage(downscale(image, SIXEL_MAX_WIDTH, SIXEL_MAX_HEIGHT));
  const passThrough =
    format === 'png' && bytes.length <= PASS_THROUGH_BYTES && image.width <= PASS_THROUGH_SIDE && image.height <= PASS_THROUGH_SIDE;
  const png = passThrough ? bytes : encodePng(downscale(image, SHRUNK_SIDE, SHRUNK_SIDE));
  return protocol === 'kitty' ? kittyImage(png) : itermImage(png);
}
