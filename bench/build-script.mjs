#!/usr/bin/env node
// The baseline of the build benchmark, run as its own fresh process like the CLI it is compared
// with: the same calls as `assetgen build -j 16` of N images, from the simplest client there is —
// fetch, 16 at a time, an Idempotency-Key on every POST (as every real client sends), each asset
// saved to its own file.
//   node bench/build-script.mjs <mock url> <api key> <count> <dir> [minimal|guarded]
// `guarded` also keeps the build's two promises: each file saved atomically (temp + rename) and each
// paid call's key durably recorded before the call — here as an fsync'd append-only journal, many
// keys per write (what a careful script would do).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const [url, apiKey, countText, dir, mode = 'minimal'] = process.argv.slice(2);
const count = Number(countText);
const guarded = mode === 'guarded';
fs.mkdirSync(dir, { recursive: true });

/** Appends lines to a journal, one write and one fsync for all the lines that arrive meanwhile. */
function journal(file) {
  const handle = fs.promises.open(file, 'a');
  let pending = [];
  let writing;
  const drain = async () => {
    const fh = await handle;
    while (pending.length) {
      const batch = pending.splice(0);
      await fh.write(batch.map((entry) => entry.line).join(''));
      await fh.datasync();
      for (const entry of batch) entry.resolve();
    }
    writing = undefined;
  };
  return {
    append: (record) =>
      new Promise((resolve) => {
        pending.push({ line: `${JSON.stringify(record)}\n`, resolve });
        writing ??= drain();
      }),
    close: async () => {
      await writing;
      await (await handle).close();
    },
  };
}

const keys = guarded ? journal(path.join(dir, 'keys.journal')) : undefined;
let next = 0;
const worker = async () => {
  for (let i = next++; i < count; i = next++) {
    const key = randomUUID();
    await keys?.append({ id: `icon-${i}`, key });
    const response = await fetch(`${url}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ agentId: 'sprite-artist', prompt: `icon number ${i} (script ${mode} ${key})` }),
    });
    const record = await response.json();
    const file = await fetch(record.output.url);
    const bytes = Buffer.from(await file.arrayBuffer());
    const target = path.join(dir, `icon-${i}.png`);
    if (!guarded) {
      fs.writeFileSync(target, bytes);
      continue;
    }
    const temp = `${target}.part`;
    await fs.promises.writeFile(temp, bytes, { flag: 'wx' });
    await fs.promises.rename(temp, target);
    void keys.append({ id: `icon-${i}`, file: target, size: bytes.length });
  }
};
await Promise.all(Array.from({ length: 16 }, worker));
await keys?.close();
