// The one format of every benchmark figure: rows `{ figure, measured, baseline, ratio, goal, met }`
// (`met` undefined for a reference row, which has no goal).
export function formatTable(rows) {
  const lines = ['| figure | measured | baseline (same run) | ratio | goal | met |', '|---|---|---|---|---|---|'];
  for (const row of rows) {
    lines.push(
      `| ${row.figure} | ${row.measured} | ${row.baseline} | ${row.ratio.toFixed(2)}× | ${row.goal} | ${row.met === undefined ? '—' : row.met ? 'yes' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}

/** For `node bench/<name>.mjs`: run this suite alone and print its rows. */
export async function runAlone(meta, run) {
  if (meta.url === new URL(`file://${process.argv[1]}`).href) console.log(formatTable(await run()));
}
