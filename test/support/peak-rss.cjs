// Preloaded into a spawned CLI (node --require): on exit, writes the process's peak resident set
// (getrusage's ru_maxrss, in KiB) to the file named by ASSETGEN_TEST_PEAK_RSS_FILE. The kernel keeps
// the peak, so no sampling can miss it; the CLI itself is the unchanged bin/assetgen.js.
'use strict';
const fs = require('node:fs');

const file = process.env.ASSETGEN_TEST_PEAK_RSS_FILE;
if (file) process.on('exit', () => fs.writeFileSync(file, String(process.resourceUsage().maxRSS)));
