// Renders every help screen of the command table with commander, as `assetgen <command> --help`
// prints it, into dist/help-screens.json (format: src/cli/help-screens.cts). Commander wraps
// descriptions to the terminal's width (80 when stdout is not a terminal); colour does not change
// the text (its default styles are plain). So each screen is kept at 80 columns and from the width
// at which nothing wraps any more; other widths are left to commander.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const WIDEST = 1000;

/** `render(words, width)`: what `assetgen <words…> --help` prints on stdout at `width` columns. */
export function helpRenderer(programFile) {
  const { buildProgram } = require(programFile);
  return async (words, width) => {
    let out = '';
    const built = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut: (text) => (out += text), writeErr() {} });
    const configure = (command) => {
      command.configureOutput({ getOutHelpWidth: () => width, getOutHasColors: () => false });
      command.commands.forEach(configure);
    };
    configure(built.program);
    const code = await built.run([...words, '--help']);
    if (code !== 0) throw new Error(`assetgen ${words.join(' ')} --help exited ${code}`);
    return out;
  };
}

/** Every command path of the table ([] is the program), with whether it has subcommands. */
export function commandPaths(programFile) {
  const { buildProgram } = require(programFile);
  const { program } = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut() {}, writeErr() {} });
  const paths = [];
  const walk = (command, words) => {
    paths.push({ words, parent: command.commands.length > 0 });
    for (const sub of command.commands) walk(sub, [...words, sub.name()]);
  };
  walk(program, []);
  return paths;
}

export async function renderHelpScreens(programFile) {
  const render = helpRenderer(programFile);
  const screens = {};
  for (const { words, parent } of commandPaths(programFile)) {
    const wide = await render(words, WIDEST);
    // From the longest line's width up nothing wraps; below it, find where the text first changes.
    let from = Math.max(...wide.split('\n').map((line) => line.length));
    if ((await render(words, from)) !== wide) throw new Error(`help of "${words.join(' ')}" wraps at its own width`);
    while (from > 1 && (await render(words, from - 1)) === wide) from -= 1;
    screens[words.join(' ')] = { wide, from, ...(from > 80 ? { at80: await render(words, 80) } : {}), parent };
  }
  return screens;
}
