#!/usr/bin/env node
// One download in a fresh process, built up a factor at a time, for the split rows of
// bench/download.mjs: `node bench/download-split.mjs <variant> <url> <file>`. Each variant adds one
// thing to the one before it, using the CLI's own code from dist/ where it has one:
//   socket→file  node:http into fs.createWriteStream (node's defaults: 16 KiB writes)
//   +batches     the CLI's writer: 1 MiB batches through fs.writev (dist/client/body-writer.js)
//   +gc          a young-generation collection every 2 MiB (collectAsItGoes, dist/cli/memory.js)
//   +malloc      glibc keeps what the collections free (keepFreedMemory; with +gc: paceMemory)
//   +meter       the byte meter (announced size, Content-Length; dist/client/download-meter.js)
//   +sha256      hashing every chunk (a build hashes what it saves; `generate` does not)
//   sdk          client.download() with the CLI's paceMemory as its progress hook: what the CLI runs
//   sdk alone    client.download() as a library's caller gets it (the host's memory left alone)
//   stages       +meter through a Transform into a 1 MiB write stream (the writer before this one)
// It prints one line of JSON: the peak RSS (KiB) and the CPU (ms) of this process.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

const CHAIN = ['+batches', '+gc', '+malloc', '+meter', '+sha256'];
export const VARIANTS = ['socket→file', ...CHAIN, 'sdk', 'sdk alone', 'stages'];

/** One download of `variant`, then its report on stdout. */
async function main() {
  const [variant, url, file] = process.argv.slice(2);
  const factors = variant === 'stages' ? CHAIN.slice(1, 4) : CHAIN.slice(0, CHAIN.indexOf(variant) + 1);
  const upTo = (name) => factors.includes(name);
  const dist = (module) => import(new URL(`../dist/${module}`, import.meta.url).href);

  if (variant.startsWith('sdk')) {
    const { createClient } = await dist('index.js');
    const { paceMemory } = await dist('cli/memory.js');
    const client = createClient({ baseUrl: url });
    await client.download(url, file, variant === 'sdk' ? { onProgress: paceMemory() } : {});
    await client.close();
  } else {
    const response = await new Promise((resolve, reject) => http.get(url, resolve).once('error', reject));
    if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
    if (variant === 'socket→file') await pipeline(response, fs.createWriteStream(file));
    else {
      const total = Number(response.headers['content-length']);
      const hash = upTo('+sha256') ? createHash('sha256') : undefined;
      const memory = await dist('cli/memory.js');
      if (upTo('+malloc')) memory.keepFreedMemory();
      const collect = upTo('+gc') ? memory.collectAsItGoes() : undefined;
      const { DownloadMeter } = await dist('client/download-meter.js');
      const meter = upTo('+meter')
        ? new DownloadMeter({ what: 'GET', contentLength: total, expectedBytes: total, encoded: false })
        : undefined;
      let received = 0;
      const check = (chunk) => {
        const error = meter ? (meter.receive(chunk.length) ?? meter.write(chunk.length)) : undefined;
        if (error) return error;
        hash?.update(chunk);
        received += chunk.length;
        collect?.(received);
        return undefined;
      };
      if (variant === 'stages') {
        const stage = new Transform({ transform: (chunk, _encoding, callback) => callback(check(chunk), chunk) });
        const fd = fs.openSync(file, 'wx');
        await pipeline(response, stage, fs.createWriteStream(file, { fd, highWaterMark: 1 << 20 }));
      } else {
        const { writeBody } = await dist('client/body-writer.js');
        const fd = fs.openSync(file, 'wx');
        await writeBody(response, fd, check);
        fs.closeSync(fd);
      }
      meter?.finish();
      hash?.digest('hex');
    }
  }
  const usage = process.resourceUsage();
  console.log(JSON.stringify({ maxRssKiB: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
