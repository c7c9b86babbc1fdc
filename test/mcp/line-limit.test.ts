// The bound between stdin and the SDK's stdio transport (src/mcp/line-limit.ts): lines within the
// limit pass whole, one per chunk, however stdin cuts them; a longer one is skipped as it arrives,
// and its top-level id is found without keeping the message.
import { describe, expect, it } from 'vitest';
import { LineLimit } from '../../src/mcp/line-limit.js';

const LIMIT = 1000;

/** Feeds `text` in pieces of `step` bytes; what came out and what was reported. */
async function run(text: string, step = 7) {
  const events: string[] = [];
  const skipped: { bytes: number; id: string | number | undefined }[] = [];
  const limit = new LineLimit({ onOversize: () => events.push('oversize'), onSkipped: (bytes, id) => skipped.push({ bytes, id }) }, LIMIT);
  const out: string[] = [];
  limit.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += step) limit.write(bytes.subarray(at, at + step));
  await new Promise((resolve) => limit.end(resolve));
  return { out, events, skipped };
}

const message = (value: unknown): string => `${JSON.stringify(value)}\n`;

describe('LineLimit', () => {
  it('passes lines within the limit whole, one chunk each (the longest allowed included)', async () => {
    const exact = `"${'x'.repeat(LIMIT - 2)}"`;
    const text = message({ jsonrpc: '2.0', id: 1, method: 'ping' }) + `${exact}\n` + message({ jsonrpc: '2.0', id: 2, method: 'ping' });
    const { out, events } = await run(text);
    expect(out).toEqual(text.split(/(?<=\n)/));
    expect(events).toEqual([]);
  });

  it('skips a longer line, reports it once, answers with its top-level id (wherever it is), and goes on', async () => {
    const long = message({ jsonrpc: '2.0', method: 'tools/call', params: { id: 'inner', prompt: 'p'.repeat(3 * LIMIT) }, id: 42 });
    const next = message({ jsonrpc: '2.0', id: 43, method: 'tools/list' });
    const { out, events, skipped } = await run(long + next, 64);
    expect(events).toEqual(['oversize']);
    expect(skipped).toEqual([{ bytes: long.length - 1, id: 42 }]);
    expect(out).toEqual([next]);
  });

  it('finds string ids with escapes, and none in a notification', async () => {
    const withId = message({ id: 'a"b\\c', jsonrpc: '2.0', method: 'x', params: { text: 'q'.repeat(2 * LIMIT), id: 5 } });
    const notification = message({ jsonrpc: '2.0', method: 'notifications/x', params: { id: 5, text: 'q'.repeat(2 * LIMIT) } });
    const { skipped } = await run(withId + notification);
    expect(skipped.map((entry) => entry.id)).toEqual(['a"b\\c', undefined]);
  });

  it('a long line that never ends is reported at once and never held', async () => {
    const { out, events, skipped } = await run(`{"jsonrpc":"2.0","id":7,"params":"${'z'.repeat(10 * LIMIT)}`, 500);
    expect(events).toEqual(['oversize']);
    expect(out).toEqual([]);
    // At the end of the input, the skipped line is closed: it had an id, but no end.
    expect(skipped).toEqual([{ bytes: 10 * LIMIT + 34, id: 7 }]);
  });
});
