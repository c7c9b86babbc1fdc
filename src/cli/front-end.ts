// What a message tells its reader to do, in the words of the front end they use: the command
// line's flags and commands, or an MCP tool's arguments and tools. The kit and the commands ask
// their context (`ctx.frontEnd`) instead of spelling a flag, so an MCP client is never told to
// "pass --force", an argument it does not have. Both wordings live here, side by side.
import { ENV } from '../config/credentials.js';
import { COMMAND_LINE_BUDGET_IS, commandLineLeftAlone, type LeftAloneChange } from '../api/left-alone.js';
import { toolArgumentsText, type ResumeToolCall } from './resume.js';

/** An option a message may tell the reader to give. */
export type Option = 'force' | 'output' | 'idempotencyKey' | 'yes' | 'dryRun' | 'maxCredits' | 'agent' | 'more' | 'check';

/** Something a message may send the reader to (a list, a poll, a check). */
export type Lookup = 'agents' | 'jobs' | 'generate' | 'check';

/** A build of the project a message shows: the assets (ids or globs, or placeholders), and its options. */
export interface BuildCall {
  ids: readonly string[];
  more?: number;
  dryRun?: boolean;
}

export interface FrontEnd {
  /** How to give an option, with its value when there is one: `--idempotency-key <key>` / `` `idempotency_key: "<key>"` ``. */
  option(option: Option, value?: string | number): string;
  /** Doing the same again: "Run the same command again" / "Call generate_image again". */
  readonly again: string;
  /** Doing it again with an option: "Run with --dry-run" / "Call build with `dry_run: true`". */
  againWith(option: Option): string;
  /** Where to look something up, in backticks: `assetgen jobs` / `list_jobs`. */
  lookup(what: Lookup): string;
  /** Going there, as an instruction: "Run `assetgen check`" / "Call `check_assets`". */
  use(what: Lookup): string;
  /** Polling a video job once. */
  pollVideo(id: string): string;
  /** Picking up a paid job: its command line, or the waiting tool with its arguments (the id, where it saves). */
  resume(job: { command: string; tool: ResumeToolCall }): string;
  /** Making the takes a failure left unmade (the saved ones replay, free): the command line, or the same call with the key. */
  resumeTakes(takes: { command: string; key: string }): string;
  /** A prompt and agent to start from, as an example. */
  readonly generateExample: string;
  /** Building without a cap, as a parenthesis. */
  readonly noCap: string;
  /** Lifting the cap, as an instruction. */
  readonly liftCap: string;
  /**
   * Building `ids` once without a cap (their prices then known): the command line (`command`), or
   * the build tool's call — which cannot lift the manifest's `budget`, so says to remove it.
   */
  buildUncapped(build: { command: string; ids: readonly string[]; budgetInManifest: boolean }): string;
  /** The ways of configuring the service's URL (joined with `anyOf`). */
  readonly setBaseUrl: readonly string[];
  /** Sending credentials over plain http:// to a host that is not loopback anyway, as an instruction. */
  readonly allowPlainHttp: string;
  /** Planning against the bundled mock. */
  readonly useMock: string;
  /** Building a manifest other than the nearest one. */
  readonly otherManifest: string;
  /** Naming the assets a build is for: "give their ids or a glob" / "… in `ids`". */
  readonly nameAssets: string;
  /** A build, in backticks: `assetgen build sword --more 2` / `build` with {"ids": ["sword"], "more": 2}. */
  build(call: BuildCall): string;
  /** A build as an example, after "For example:": the bare command line, or "call `build` with {…}". */
  buildExample(call: BuildCall): string;
  /**
   * Building again, which resumes the paid work assetgen.lock records: "run `assetgen build` again" /
   * "call `build` again"; `same`: with the same assets and options.
   */
  buildAgain(same?: boolean): string;
  /** Choosing take k of an asset: `assetgen pick <id> <k>` / `pick_variant` with {"id": …, "take": <k>}. */
  readonly pick: (id: string) => string;
  /**
   * Making an asset again, a new paid generation even where its files are up to date or edited:
   * `assetgen build <id> --force`, in backticks. No tool regenerates by force, so over MCP it is
   * that command, for the person to run in a terminal.
   */
  regenerate(id: string): string;
  /**
   * A build leaving a file alone that it would write over (`change`: replace one assetgen did not
   * make, regenerate an edited output, re-pack an edited sheet), and how to have it made anyway:
   * "left alone (--force replaces it)" / remove the file, or `regenerate` for a terminal.
   */
  readonly leftAlone: (id: string, change: LeftAloneChange) => string;
  /**
   * What the manifest's `budget` is, after a budget that is not a whole number of credits: "the
   * default --max-credits" / "the default `max_credits` of `build`" (a tool other than build, such
   * as check_assets, has no `max_credits`).
   */
  readonly budgetIs: string;
}

/** Over MCP, making an asset again by force: no tool does, the person can in a terminal. */
const askToRegenerate = (id: string): string =>
  `ask the person to run \`assetgen build ${id} --force\` in a terminal (no tool regenerates by force)`;

/** Over MCP: no tool has --force; the person can, in a terminal (or, for a file assetgen did not make, remove it). */
const TO_HAVE_IT: Record<LeftAloneChange, string> = {
  replace: 'to replace it, remove the file or',
  regenerate: 'to regenerate it,',
  repack: 'to re-pack it,',
};

/**
 * The mock dies with this command: a command line's (--mock, the demo's steps). An MCP server's
 * mock serves every call while the server runs, so its waiting tool can still pick a job up, and
 * a call asked again with the same key gets the same answer.
 */
export const mockEndsWithCommand = (globals: { mock: boolean }, frontEnd: FrontEnd): boolean => globals.mock && frontEnd === CLI;

/** A phrase of the front end at the start of a sentence: "Run `assetgen build` again". */
export const capitalized = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** "a, b, or c": the ways a hint offers. */
export const anyOf = (ways: readonly string[]): string =>
  ways.length < 2 ? (ways[0] ?? '') : `${ways.slice(0, -1).join(', ')}, or ${ways.at(-1)}`;

const FLAGS: Record<Option, string> = {
  force: '--force',
  output: '-o',
  idempotencyKey: '--idempotency-key',
  yes: '--yes',
  dryRun: '--dry-run',
  maxCredits: '--max-credits',
  agent: '--agent',
  more: '--more',
  check: '--check',
};

/** `assetgen build sword --more 2 --dry-run`: the ids as given (a placeholder such as `<id>` unquoted). */
const buildCommand = ({ ids, more, dryRun }: BuildCall): string =>
  ['assetgen build', ...ids, ...(more === undefined ? [] : [`${FLAGS.more} ${more}`]), ...(dryRun ? [FLAGS.dryRun] : [])].join(' ');

const COMMANDS: Record<Lookup, string> = {
  agents: '`assetgen agents`',
  jobs: '`assetgen jobs`',
  generate: '`assetgen generate "<prompt>" --agent <id>`',
  check: '`assetgen check`',
};

export const CLI: FrontEnd = {
  option: (option, value) => (value === undefined ? FLAGS[option] : `${FLAGS[option]} ${value}`),
  again: 'Run the same command again',
  againWith: (option) => `Run with ${FLAGS[option]}`,
  lookup: (what) => COMMANDS[what],
  use: (what) => `Run ${COMMANDS[what]}`,
  pollVideo: (id) => `\`assetgen video get ${id}\``,
  resume: (job) => job.command,
  resumeTakes: (takes) => takes.command,
  generateExample: 'assetgen generate "rusty sword icon" --agent sprite-artist',
  noCap: '`--max-credits none`',
  liftCap: 'pass --max-credits none',
  buildUncapped: (build) => `\`${build.command}\``,
  setBaseUrl: ['Pass --base-url <url>', `set ${ENV.baseUrl}`, 'run `assetgen auth login --base-url <url>`'],
  allowPlainHttp: 'pass --allow-insecure-http',
  useMock: '--mock',
  otherManifest: 'pass -f <path>',
  nameAssets: 'give their ids or a glob',
  build: (call) => `\`${buildCommand(call)}\``,
  buildExample: buildCommand,
  buildAgain: (same) => (same ? 'run the same `assetgen build` again' : 'run `assetgen build` again'),
  pick: (id) => `assetgen pick ${id} <k>`,
  regenerate: (id) => `\`assetgen build ${id} --force\``,
  leftAlone: commandLineLeftAlone,
  budgetIs: COMMAND_LINE_BUDGET_IS,
};

/**
 * An MCP tool's arguments for each option: the first of these the tool takes (`output` or
 * `output_dir`), and the value a boolean one is given. Tool arguments are snake_case (src/mcp/tools).
 */
const ARGUMENTS: Record<Option, { names: string[]; flag?: true }> = {
  force: { names: ['overwrite'], flag: true },
  output: { names: ['output', 'output_dir'] },
  idempotencyKey: { names: ['idempotency_key'] },
  yes: { names: ['confirm_videos'], flag: true },
  dryRun: { names: ['dry_run'], flag: true },
  maxCredits: { names: ['max_credits'] },
  agent: { names: ['agent'] },
  more: { names: ['more'] },
  check: { names: ['check'], flag: true },
};

/** The tools a message may send the reader to. */
const TOOLS: Record<Lookup, string> = {
  agents: '`list_agents`',
  jobs: '`list_jobs`',
  generate: '`generate_image` with its `agent`',
  check: '`check_assets`',
};

/** The build tool's arguments for a build: `{"ids": ["sword"], "more": 2, "dry_run": true}`. */
const buildArguments = ({ ids, more, dryRun }: BuildCall): string =>
  toolArgumentsText({ ids: [...ids], ...(more === undefined ? {} : { more }), ...(dryRun ? { dry_run: true } : {}) });

/** The words of one MCP tool (`tool`), which takes the arguments `argumentNames`. */
export function mcpFrontEnd(tool: string, argumentNames: readonly string[]): FrontEnd {
  const argument = (option: Option): string => {
    const { names } = ARGUMENTS[option];
    return names.find((name) => argumentNames.includes(name)) ?? names[0];
  };
  const option = (option: Option, value?: string | number): string => {
    const given = value ?? (ARGUMENTS[option].flag ? true : undefined);
    return `\`${argument(option)}${given === undefined ? '' : `: ${JSON.stringify(given)}`}\``;
  };
  const call = (name: string, id: string) => `\`${name}\` with {"id": ${JSON.stringify(id)}}`;
  return {
    option,
    again: `Call ${tool} again`,
    againWith: (name) => `Call ${tool} with ${option(name)}`,
    lookup: (what) => TOOLS[what],
    use: (what) => `Call ${TOOLS[what]}`,
    pollVideo: (id) => call('get_video', id),
    resume: ({ tool }) => `\`${tool.tool}\` with ${toolArgumentsText(tool.arguments)} (no new charge)`,
    resumeTakes: (takes) => `Call ${tool} again with the same arguments, ${option('idempotencyKey', takes.key)} and ${option('force')}`,
    generateExample: '{"prompt": "rusty sword icon", "agent": "sprite-artist"}',
    noCap: 'no `max_credits`, and no `budget` in the manifest',
    liftCap: "leave out `max_credits` and remove the manifest's `budget`",
    buildUncapped: ({ ids, budgetInManifest }) =>
      `\`build\` with ${toolArgumentsText({ ids: [...ids] })} and no \`max_credits\`${budgetInManifest ? ", the manifest's `budget` removed for that build" : ''}`,
    setBaseUrl: [`Set ${ENV.baseUrl} in the server's environment`, 'run `assetgen auth login --base-url <url>` in a terminal'],
    allowPlainHttp: 'start the server with `assetgen mcp --allow-insecure-http`',
    useMock: 'the bundled mock (`assetgen mcp --mock`)',
    otherManifest: "start the server in the manifest's folder",
    nameAssets: 'give their ids or a glob in `ids`',
    build: (call) => `\`build\` with ${buildArguments(call)}`,
    buildExample: (call) => `call \`build\` with ${buildArguments(call)}`,
    buildAgain: (same) => (same ? 'call `build` again with the same arguments' : 'call `build` again'),
    pick: (id) => `\`pick_variant\` with {"id": ${JSON.stringify(id)}, "take": <k>}`,
    regenerate: askToRegenerate,
    // `regenerate`'s words, after how to have the file made anyway.
    leftAlone: (id, change) => `left alone; ${TO_HAVE_IT[change]} ${askToRegenerate(id)}`,
    budgetIs: 'the default `max_credits` of `build`',
  };
}
