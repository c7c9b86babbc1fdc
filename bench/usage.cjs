// Preloaded into every contender of a benchmark (`node --require bench/usage.cjs …`): at exit, the
// process writes its own CPU time (user + system) and peak RSS to $BENCH_USAGE_FILE, so a CLI and a
// baseline script are measured the same way, each as its own fresh process.
'use strict';
const fs = require('node:fs');
// The process's own peak, not the image it was forked from (see there).
const { peakRssKiB } = require('../test/support/peak-rss.cjs');

const file = process.env.BENCH_USAGE_FILE;
// Worker threads inherit --require: only the process's own thread writes (at the end, the whole process's figures).
if (file && require('node:worker_threads').isMainThread) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    fs.writeFileSync(
      file,
      JSON.stringify({
        cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
        maxRssKiB: peakRssKiB(),
        mainThreadCpuMs: mainThreadCpuMs(),
      }),
    );
  });
}

/**
 * The CPU time of the main thread alone (Linux: its schedstat, in ns), where the process's figure
 * adds the worker and V8's helper threads: what a run waits for when another core is free.
 */
function mainThreadCpuMs() {
  try {
    return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}
