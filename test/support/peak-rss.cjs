// Preloaded into a spawned CLI (node --require): on exit, writes the process's peak resident set (in
// KiB) to the file named by ASSETGEN_TEST_PEAK_RSS_FILE. The kernel keeps the peak, so no sampling
// can miss it; the CLI itself is the unchanged bin/assetgen.js. bench/usage.cjs reads it the same way.
'use strict';
const fs = require('node:fs');

/**
 * The peak RSS of this process's own image, in KiB. On Linux that is /proc/self/status's VmHWM, not
 * getrusage's ru_maxrss: the kernel carries ru_maxrss across execve from the image a process was
 * forked from (exec_mmap keeps the old mm's high-water mark), so a CLI spawned by a 150 MiB test
 * worker read at least 150 MiB whatever it used itself. Elsewhere, ru_maxrss.
 */
function peakRssKiB() {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]);
  } catch {
    // Not Linux: no /proc.
  }
  return process.resourceUsage().maxRSS;
}

const file = process.env.ASSETGEN_TEST_PEAK_RSS_FILE;
if (file) process.on('exit', () => fs.writeFileSync(file, String(peakRssKiB())));

module.exports = { peakRssKiB };
