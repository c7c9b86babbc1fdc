// The real CLI (node bin/assetgen.js …) spawned with its peak memory measured: a preload reports
// its own image's high-water mark at exit (peak-rss.cjs: VmHWM on Linux), exact and without sampling.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, collect, type CliOptions, type CliResult } from './cli.js';

const PRELOAD = fileURLToPath(new URL('./peak-rss.cjs', import.meta.url));

export interface Measured {
  child: ChildProcess;
  /** Resolves when the process has exited: its peak RSS in MiB (throws if it never reported one). */
  peakRssMiB(): number;
}

/** Spawns the CLI; stdin is left open for the caller unless `input` is given. */
export function spawnMeasured(args: string[], options: CliOptions): Measured {
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-rss-')), 'peak');
  const child = spawn(process.execPath, ['--require', PRELOAD, BIN, ...args], {
    env: { ...options.env, ASSETGEN_TEST_PEAK_RSS_FILE: report },
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (options.input !== undefined) child.stdin!.end(options.input);
  return {
    child,
    peakRssMiB() {
      const kib = Number(fs.readFileSync(report, 'utf8'));
      fs.rmSync(path.dirname(report), { recursive: true, force: true });
      return kib / 1024;
    },
  };
}

/** Runs the CLI to its exit (stdin closed); its result and peak RSS in MiB. */
export async function runMeasured(args: string[], options: CliOptions): Promise<CliResult & { peakRssMiB: number }> {
  const measured = spawnMeasured(args, { ...options, input: options.input ?? '' });
  const result = await collect(measured.child, options.timeoutMs ?? 20_000);
  return { ...result, peakRssMiB: measured.peakRssMiB() };
}
