// Preloaded into every contender of a benchmark (`node --require bench/usage.cjs …`): at exit, the
// process writes its own CPU time (user + system) and peak RSS to $BENCH_USAGE_FILE, so a CLI and a
// baseline script are measured the same way, each as its own fresh process.
'use strict';
const fs = require('node:fs');

const file = process.env.BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    fs.writeFileSync(file, JSON.stringify({ cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssKiB: usage.maxRSS }));
  });
}
