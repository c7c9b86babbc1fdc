// Help screens rendered at build time (scripts/help-screens.mjs renders each with commander from the
// command table into dist/help-screens.json), so a plain help request is answered without loading
// commander or the table. Anything else, and any terminal width a screen was not rendered for, falls
// back to commander. test/commands/help-screens.test.ts compares every screen with commander's own.
// CommonJS, like the entry that reads it.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** One command's help as commander prints it, by terminal width (commander wraps descriptions to it). */
export interface HelpScreen {
  /** The text at every width from `from` up (no line wraps any more). */
  wide: string;
  from: number;
  /** The text at 80 columns (commander's width when stdout is not a terminal), when `from` is above 80. */
  at80?: string;
  /** The command has subcommands, so commander gives it a `help [command]` subcommand. */
  parent: boolean;
}

/** Keyed by the command's path below `assetgen` (`video create`; the program itself is ''). */
export type HelpScreens = Record<string, HelpScreen>;

export const HELP_SCREENS_FILE = path.join(__dirname, '..', 'help-screens.json');

/** What help is wrapped to when the width is not known: commander's own default, a pipe's. */
export const DEFAULT_HELP_WIDTH = 80;

/**
 * A terminal width help can be wrapped to: `columns` when it is a width, else 80. Some terminals
 * and CI runners report 0 columns (or none): wrapped to that, every description went under its
 * option and no line was wrapped at all.
 */
export function usableHelpWidth(columns: number | undefined): number {
  return columns !== undefined && Number.isInteger(columns) && columns > 0 ? columns : DEFAULT_HELP_WIDTH;
}

/** The width commander wraps stdout's help to: the terminal's columns, else 80 (a pipe, or a width of 0). */
export function helpWidth(stdout: { isTTY?: boolean; columns?: number }): number {
  return usableHelpWidth(stdout.isTTY ? stdout.columns : undefined);
}

/**
 * The key of the screen a plain help request asks for — `[cmd…] --help`, `[cmd…] -h`,
 * `[cmd…] help [sub]`, `help <cmd> <sub>…` (as `gh help pr create`) — or undefined for any other
 * command line.
 */
export function requestedScreen(args: readonly string[], screens: HelpScreens): string | undefined {
  const last = args[args.length - 1];
  const known = (words: readonly string[]): string | undefined => {
    const key = words.join(' ');
    return Object.hasOwn(screens, key) ? key : undefined;
  };
  if (last === '--help' || last === '-h') return known(args.slice(0, -1));
  const at = args.indexOf('help');
  if (at === -1) return undefined;
  const parent = known(args.slice(0, at));
  if (parent === undefined || !screens[parent].parent) return undefined;
  // `video help create`; and below the program, every word after help: `help video create`.
  const named = args.slice(at + 1);
  if (named.length === 0) return parent;
  return at === 0 || named.length === 1 ? known([...args.slice(0, at), ...named]) : undefined;
}

/** The screen's text at `width`, when it was rendered for that width. */
export function screenText(screen: HelpScreen, width: number): string | undefined {
  if (width >= screen.from) return screen.wide;
  return width === 80 ? screen.at80 : undefined;
}

/** The precomputed text for this command line on this stdout, or undefined (ask commander). */
export function precomputedHelp(args: readonly string[], stdout: { isTTY?: boolean; columns?: number }): string | undefined {
  let screens: HelpScreens;
  try {
    screens = JSON.parse(readFileSync(HELP_SCREENS_FILE, 'utf8')) as HelpScreens;
  } catch {
    return undefined; // not built (a dev run from src/): commander answers
  }
  const key = requestedScreen(args, screens);
  return key === undefined ? undefined : screenText(screens[key], helpWidth(stdout));
}
