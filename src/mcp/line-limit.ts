// A bound on what an MCP client may send in one message. The SDK's stdio transport buffers a line
// until its newline, and past its own cap (10 MiB) closes — the server ended, exit 0, without a
// word. Between stdin and the transport, this stream passes each complete line on as one chunk,
// and skips an over-long one as it arrives (never holding more than the limit): it reports the
// refusal at once and, when the line ends, the request id it found, so the client can be answered.
import { Transform, type TransformCallback } from 'node:stream';

export const MCP_MESSAGE_LIMIT_BYTES = 4 * 2 ** 20;

const NEWLINE = 0x0a;

export interface LineLimitEvents {
  /** A line passed the limit: the rest of it is being skipped. */
  onOversize(): void;
  /** The skipped line ended: its size, and its top-level `id` when one was seen. */
  onSkipped(bytes: number, id: string | number | undefined): void;
}

export class LineLimit extends Transform {
  readonly #limit: number;
  readonly #events: LineLimitEvents;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** While skipping an over-long line: its size so far, and the id it carries. */
  #skipping: { bytes: number; id: TopLevelId } | undefined;

  constructor(events: LineLimitEvents, limit = MCP_MESSAGE_LIMIT_BYTES) {
    super();
    this.#limit = limit;
    this.#events = events;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    for (let start = 0; start < chunk.length; ) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      const part = chunk.subarray(start, end);
      if (this.#skipping) this.#skip(part);
      else if (this.#pendingBytes + part.length <= this.#limit) {
        this.#pending.push(part);
        this.#pendingBytes += part.length;
      } else {
        this.#events.onOversize();
        this.#skipping = { bytes: 0, id: new TopLevelId() };
        for (const held of this.#pending) this.#skip(held);
        this.#skip(part);
        this.#pending = [];
        this.#pendingBytes = 0;
      }
      if (newline === -1) break;
      this.#endLine();
      start = newline + 1;
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    // A last line without its newline is not a message (the transport would never parse it).
    if (this.#skipping) this.#endLine();
    callback();
  }

  #skip(part: Buffer): void {
    this.#skipping!.bytes += part.length;
    this.#skipping!.id.feed(part);
  }

  #endLine(): void {
    if (this.#skipping) {
      this.#events.onSkipped(this.#skipping.bytes, this.#skipping.id.value());
      this.#skipping = undefined;
      return;
    }
    // One line, one chunk: the transport's buffer never holds more than one message.
    this.push(Buffer.concat([...this.#pending, Buffer.of(NEWLINE)]));
    this.#pending = [];
    this.#pendingBytes = 0;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** An id longer than this is not worth answering with. */
const MAX_ID_BYTES = 256;

/**
 * Finds the top-level `"id"` of a JSON object as its bytes stream past, in constant memory (the
 * message itself is never kept): a small state machine over strings, nesting and keys.
 */
class TopLevelId {
  #depth = 0;
  #inString = false;
  #escaped = false;
  #expectKey = false;
  /** What the current top-level string or value is being read for. */
  #reading: 'key' | 'id' | undefined;
  #key: number[] = [];
  #raw: number[] = [];
  #found: string | number | undefined;

  feed(bytes: Buffer): void {
    if (this.#found !== undefined) return;
    for (let index = 0; index < bytes.length; index++) this.#byte(bytes[index]);
  }

  value(): string | number | undefined {
    if (this.#reading === 'id') this.#finishId();
    return this.#found;
  }

  #byte(byte: number): void {
    if (this.#inString) {
      this.#keep(byte);
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) {
        this.#inString = false;
        if (this.#reading === 'key') this.#reading = undefined;
        else if (this.#reading === 'id') this.#finishId();
      }
      return;
    }
    if (byte === QUOTE) {
      this.#inString = true;
      if (this.#depth === 1 && this.#expectKey) {
        this.#reading = 'key';
        this.#key = [];
      } else this.#keep(byte);
    } else if (byte === 0x7b || byte === 0x5b) {
      // `{` or `[`: an id is never an object or a list.
      if (this.#reading === 'id') this.#reading = undefined;
      this.#depth++;
      this.#expectKey = this.#depth === 1 && byte === 0x7b;
    } else if (byte === 0x7d || byte === 0x5d) {
      if (this.#reading === 'id') this.#finishId();
      this.#depth--;
    } else if (this.#depth === 1 && byte === 0x2c) {
      if (this.#reading === 'id') this.#finishId();
      this.#expectKey = true;
    } else if (this.#depth === 1 && byte === 0x3a) {
      this.#expectKey = false;
      if (this.#key.length === 2 && this.#key[0] === 0x69 && this.#key[1] === 0x64) {
        this.#reading = 'id';
        this.#raw = [];
      }
      this.#key = [];
    } else if (byte > 0x20) this.#keep(byte);
  }

  #keep(byte: number): void {
    if (this.#reading === 'key' && this.#inString && byte !== QUOTE && this.#key.length < 3) this.#key.push(byte);
    else if (this.#reading === 'id' && this.#raw.length <= MAX_ID_BYTES) this.#raw.push(byte);
  }

  #finishId(): void {
    this.#reading = undefined;
    if (this.#raw.length > MAX_ID_BYTES) return;
    try {
      const value: unknown = JSON.parse(Buffer.from(this.#raw).toString('utf8'));
      if (typeof value === 'string' || typeof value === 'number') this.#found = value;
    } catch {
      // not an id we can answer with
    }
  }
}
