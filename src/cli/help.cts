// What the help screens add to the command table: headings for the top-level commands, the
// examples at the end of every screen, and the layout that keeps them within a narrow terminal.
// CommonJS, like the table.
import { Help, type AddHelpTextContext, type Command, type HelpConfiguration } from 'commander';
import { usableHelpWidth } from './help-screens.cjs';

/**
 * The narrowest description column worth wrapping beside its option. Commander's default, 40,
 * stopped wrapping below about 67 columns (the terms of `build --help` and the global options take
 * 28), so each description ran on as one long line; at 24, a 60-column terminal keeps the usual
 * two columns.
 */
export const MIN_DESCRIPTION_WIDTH = 24;
/** Where a description goes when its column would be narrower than that: the lines under its term. */
const UNDER_TERM_INDENT = 6;
/** What commander puts before the usage line. */
const USAGE_TITLE = 'Usage: ';

/**
 * How every help screen is laid out (the command table's configureHelp). On a terminal too narrow
 * for the two columns (a 40-column pane), each description is wrapped to the width under its
 * option instead of running past the edge. Example command lines are never broken: they are
 * pasted as they are.
 */
export const HELP_LAYOUT: HelpConfiguration = {
  showGlobalOptions: true,
  sortSubcommands: false,
  minWidthToWrap: MIN_DESCRIPTION_WIDTH,
  // A terminal that reports 0 columns gets the 80 a pipe gets, not a screen wrapped to nothing.
  prepareContext(this: Help, context: { error?: boolean; helpWidth?: number; outputHasColors?: boolean }): void {
    Help.prototype.prepareContext.call(this, { ...context, helpWidth: usableHelpWidth(context.helpWidth) });
  },
  formatItem(term: string, termWidth: number, description: string, helper: Help): string {
    const width = helper.helpWidth ?? 80;
    // formatItem's own arithmetic: an indent of 2, the term, a gap of 2.
    if (!description || width - termWidth - 4 >= helper.minWidthToWrap || helper.preformatted(description))
      return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
    const indent = ' '.repeat(UNDER_TERM_INDENT);
    return `  ${term}\n${helper.boxWrap(description, width - UNDER_TERM_INDENT).replace(/^/gm, indent)}`;
  },
  // The usage line too (`Usage: assetgen workflows run [options] <id>`), continued under its first word.
  styleUsage(this: Help, usage: string): string {
    const styled = Help.prototype.styleUsage.call(this, usage);
    return this.boxWrap(styled, (this.helpWidth ?? 80) - USAGE_TITLE.length).replace(/\n/g, `\n${' '.repeat(USAGE_TITLE.length)}`);
  },
};

/** Prose added to a help screen, wrapped as commander wraps a command's description: to the help's width. */
export function wrapLikeHelp({ command, error }: AddHelpTextContext, text: string): string {
  const output = command.configureOutput();
  const width = usableHelpWidth(error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.());
  return command.createHelp().boxWrap(text, width);
}

/** Top-level commands under headings, as gh groups them. */
const GROUPS: Record<string, string> = {
  generate: 'Generate',
  agents: 'Generate',
  workflows: 'Workflows',
  runs: 'Workflows',
  video: 'Video',
  jobs: 'Video',
  init: 'Build',
  build: 'Build',
  pick: 'Build',
  report: 'Build',
  check: 'Build',
  takes: 'Build',
  lock: 'Build',
  auth: 'Setup',
  install: 'Setup',
  skills: 'Setup',
  completion: 'Setup',
  version: 'Setup',
  mcp: 'Setup',
  demo: 'Mock',
  mock: 'Mock',
};

/**
 * The end of every help screen: real commands a user can paste. test/commands/help-examples.test.ts
 * runs each one in a fresh project against the bundled mock (`<runId>`/`<id>` filled with real ids),
 * so they stay true: each exits 0, or says beside it (`  # exit N …`) the code it ends with by design.
 */
export const EXAMPLES: Record<string, string[]> = {
  '': ['assetgen demo', 'assetgen generate "rusty sword icon, 32x32 pixel art" --agent sprite-artist -o assets/icons/', 'assetgen jobs'],
  auth: ['printf %s "$ASSETGEN_API_KEY" | assetgen auth login --with-key --base-url https://assets.example.com', 'assetgen auth status'],
  'auth login': [
    'printf %s "$ASSETGEN_API_KEY" | assetgen auth login --with-key --base-url https://assets.example.com',
    'printf %s "$ASSETGEN_SESSION" | assetgen auth login --session',
    'printf %s "$ASSETGEN_API_KEY" | assetgen auth login --with-key --no-verify --base-url https://assets.example.com',
  ],
  'auth status': ['assetgen auth status', 'assetgen auth status --json'],
  'auth logout': ['assetgen auth logout'],
  generate: [
    'assetgen generate "rusty sword icon, 32x32 pixel art" --agent sprite-artist -o assets/icons/',
    'assetgen generate "mossy floor tile" --agent tile-smith --stream -o assets/tiles/',
    'assetgen generate "gold coin" --agent icon-forge -o - > coin.png',
    'assetgen generate "health potion" --agent icon-forge -q --json',
    'assetgen generate "iron shield icon" --agent icon-forge --preview -o assets/icons/',
    'assetgen generate "bat enemy sprite" --agent sprite-artist --variants 4 --yes -o assets/sprites/bat.png',
  ],
  agents: ['assetgen agents', 'assetgen agents --json'],
  workflows: ['assetgen workflows list', 'assetgen workflows run wf_tileset -o assets/tiles/'],
  'workflows list': ['assetgen workflows list', 'assetgen workflows list --json'],
  'workflows run': [
    'assetgen workflows run wf_sprite_sheet --set character="a dwarf miner" -o assets/sprites/',
    'assetgen workflows run wf_tileset --no-wait',
  ],
  runs: ['assetgen runs get <runId>', 'assetgen runs wait <runId> -o assets/tiles/'],
  'runs get': ['assetgen runs get <runId>'],
  'runs wait': ['assetgen runs wait <runId> -o assets/tiles/'],
  video: ['assetgen video create "torch flickering on a dungeon wall" --yes -o assets/fx/', 'assetgen video wait <id> -o assets/fx/'],
  'video create': [
    'assetgen video create "torch flickering on a dungeon wall" --yes -o assets/fx/',
    'assetgen video create "waterfall loop" --yes --no-wait --aspect-ratio 1:1',
  ],
  'video get': ['assetgen video get <id>'],
  'video wait': ['assetgen video wait <id> -o assets/fx/'],
  jobs: ['assetgen jobs', 'assetgen jobs --json -n 5'],
  init: ['assetgen init', 'assetgen init -f game/assetgen.yaml'],
  build: [
    'assetgen build --dry-run',
    'assetgen build sword --dry-run --json',
    'assetgen build --dry-run --shard 1/2',
    'assetgen build sword --report build/report.html',
    // A cap never sends an asset whose price is unknown, and a fresh project knows none yet.
    "assetgen build sword --force --max-credits 50  # exit 8 while sword's price is unknown (first build: --max-credits none)",
    'assetgen build --dry-run --format markdown --max-credits none',
    'assetgen build --dry-run --report plan.html',
    // With ASSETGEN_REMOTE_CACHE_TOKEN set: what a shared cache holds is restored for 0 credits.
    'assetgen build --remote-cache https://cache.example.com --dry-run',
    'assetgen build sword --more 2',
    'assetgen build sword --prune-takes',
    'assetgen build --check',
  ],
  // The starter's sword, built first (test/commands/help-examples.test.ts).
  check: ['assetgen check', 'assetgen check --json'],
  // sword with takes, as `build sword --more 2` makes them.
  pick: ['assetgen pick sword 2', 'assetgen pick sword 1 --json'],
  report: ['assetgen report', 'assetgen report --output site/assets.html --json', 'assetgen report --disclosure > DISCLOSURE.md'],
  // A fresh project's sword, built with `variants: 3` first (test/commands/help-examples.test.ts).
  takes: ['assetgen takes sword', 'assetgen takes sword --contact-sheet review/sword.png --json'],
  // The shards' locks as `build --shard k/n --lock-out shard-k.lock` writes them (docs/ci.md).
  lock: ['assetgen lock merge shard-1.lock shard-2.lock'],
  'lock merge': ['assetgen lock merge shard-1.lock shard-2.lock', 'assetgen lock merge shard-1.lock shard-2.lock --json'],
  skills: ['assetgen skills list', 'assetgen skills install --agent claude-code --scope project --yes'],
  'skills install': [
    'assetgen skills install --agent claude-code --scope project --yes',
    'assetgen skills install --all-detected --dry-run',
  ],
  'skills uninstall': ['assetgen skills uninstall --agent claude-code --yes', 'assetgen skills uninstall --dry-run'],
  'skills list': ['assetgen skills list', 'assetgen skills list --json'],
  'skills update': ['assetgen skills update --dry-run', 'assetgen skills update --yes'],
  install: ['assetgen install --agent claude-code --scope project --yes', 'assetgen install --all-detected --dry-run'],
  mcp: ['assetgen mcp', 'assetgen mcp --mock', 'assetgen mcp --allow-outside --base-url https://assets.example.com'],
  demo: ['assetgen demo', 'assetgen demo -d tour/ --force'],
  version: ['assetgen version', 'assetgen version --json'],
  completion: [
    'assetgen completion bash > ~/.local/share/bash-completion/completions/assetgen',
    'assetgen completion fish > ~/.config/fish/completions/assetgen.fish',
  ],
  mock: ['assetgen mock --port 8787', 'assetgen mock --json --credits 500'],
};

/** The command's path below `assetgen`, e.g. `video create`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/** Puts the top-level commands under their headings and ends every help screen with its examples. */
export function attachExamples(command: Command): void {
  const path = commandPath(command);
  if (command.parent && !command.parent.parent && GROUPS[path]) command.helpGroup(`${GROUPS[path]}:`);
  const examples = EXAMPLES[path];
  if (examples) command.addHelpText('after', `\nExamples:\n${examples.map((line) => `  $ ${line}`).join('\n')}\n`);
  for (const sub of command.commands) attachExamples(sub);
}
