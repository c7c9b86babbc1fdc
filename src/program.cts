// The command table: every command and option of assetgen, declared once. Each command's code is
// imported only when that command runs, so `--help` loads commander and nothing else. The entry
// (cli.cts) runs it on the real process; the tests run the same table in-process with in-memory
// streams (test/support/cli.ts). CommonJS, like the entry, for a fast start.
import { Argument, Command, CommanderError, Option } from 'commander';
import { VIDEO_JOB_COST } from './api/endpoints.js';
import { attachExamples, commandPath, HELP_LAYOUT, wrapLikeHelp } from './cli/help.cjs';
import {
  parseBaseUrl,
  parseCount,
  parseCreditCap,
  parseDuration,
  parseHtmlPath,
  parsePort,
  parsePositiveInt,
  parseSeconds,
  parseTakes,
  MAX_TAKES,
} from './cli/values.cjs';
import { PREVIEW_MODES } from './ui/preview/modes.cjs';
import { errorLine } from './ui/labels.cjs';
import { ENGINES } from './engines/names.cjs';

export { commandPath, EXAMPLES } from './cli/help.cjs';
import type { Command as AssetgenCommand, CommandResult } from './cli/command.js';
import type { CommandContext } from './cli/context.js';
import type { Runtime } from './cli/execute.js';

/** A command body: a Command (a result, presented here) or, for the few that print as they go, a function. */
type Action = ((ctx: CommandContext, ...args: unknown[]) => Promise<void>) | AssetgenCommand<never[], CommandResult>;

/** What the program needs from where it runs: how to execute a command body, and its output. */
export interface ProgramHost {
  version: string;
  /** Builds the command's context, runs the body, maps what it throws; resolves with the exit code. */
  execute(options: Record<string, unknown>, body: (ctx: CommandContext) => Promise<void>): Promise<number>;
  writeOut(text: string): void;
  writeErr(text: string): void;
}

/**
 * The host's `execute`: runs a command body in `runtime` (the real process when omitted). The kit
 * is imported from here, next to the commands, so both always come from one module graph.
 */
export function executeIn(runtime?: Runtime): ProgramHost['execute'] {
  return async (options, body) => (await import('./cli/execute.js')).execute(options, body, runtime);
}

export interface BuiltProgram {
  program: Command;
  /**
   * Parses `argv` (user arguments only) and runs the command; resolves with the exit code. Help and
   * version exit 0; every commander error is a usage error (2), printed as one JSON line with --json.
   */
  run(argv: readonly string[]): Promise<number>;
}

export function buildProgram(host: ProgramHost): BuiltProgram {
  let exitCode = 0;
  /** Runs a lazily imported command body with `options`: the host builds the context and maps errors to exit codes. */
  const perform = (load: () => Promise<Action>, options: Record<string, unknown>, commandArgs: unknown[]): Promise<number> =>
    host.execute(options, async (ctx) => {
      const action = await load();
      if (typeof action === 'function') return action(ctx, ...commandArgs);
      const { present } = await import('./cli/command.js');
      const args = commandArgs as never[];
      await present(ctx, action, await action.run(ctx, ...args), ...args);
    });
  const run =
    (load: () => Promise<Action>) =>
    async (...args: unknown[]): Promise<void> => {
      const command = args[args.length - 1] as Command;
      exitCode = await perform(load, command.optsWithGlobals<Record<string, unknown>>(), args.slice(0, -1));
    };
  const loadVersion = async (): Promise<Action> => (await import('./commands/version.js')).version;

  const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

  // With --json, commander's own errors become one JSON line like every other failure.
  let jsonErrors = false;
  const program = new Command('assetgen')
    .configureOutput({
      writeOut: (text) => host.writeOut(text),
      writeErr: (text) => {
        if (!jsonErrors && !unknownHelpOf) host.writeErr(text);
      },
      // Commander's "error: …", labelled as assetgen's own errors are (ui/labels.cts): one style.
      outputError: (text, write) => {
        const message = text.replace(/^error: /, '');
        if (jsonErrors) host.writeErr(`${JSON.stringify({ error: { code: 'usage', message: message.trim(), exitCode: 2 } })}\n`);
        else write(errorLine(message));
      },
    })
    .configureHelp(HELP_LAYOUT)
    .description('Game assets (images, videos) from the asset generation service, saved straight into your project.')
    // `--version --json` (in any order, wherever commander takes --version): the document of
    // `assetgen version --json` (commands/version.ts), not the bare line. Registered before
    // .version() adds its listener, which prints the line; run() below catches this and runs the
    // version command instead.
    .on('option:version', () => {
      if (jsonErrors) throw new CommanderError(0, VERSION_DOCUMENT, 'the version as a --json document');
    })
    .version(host.version, '-V, --version')
    .option('--base-url <url>', 'service base URL (env ASSETGEN_BASE_URL)', parseBaseUrl)
    .option('--mock', 'run this command against an in-process bundled mock service (no setup, no credits)')
    .option('--json', 'print exactly one JSON document on stdout')
    .option('-q, --quiet', 'no progress or hints on stderr (errors still print)')
    .option('--no-color', 'no colours (NO_COLOR and FORCE_COLOR are honoured too)')
    .option('--no-input', 'never prompt; fail with the flag to pass instead')
    .option('--timeout <duration>', 'give up after this long, e.g. 90s, 10m (exit 7)', parseDuration)
    .option('--verbose', 'HTTP trace on stderr (secrets redacted), stack traces on errors')
    .option('--allow-insecure-http', 'allow sending the API key over plain http:// to a non-loopback host')
    .addOption(
      new Option('--preview [protocol]', 'show saved images inline on a terminal that can (bare: auto; env ASSETGEN_PREVIEW)')
        .choices(PREVIEW_MODES)
        .preset('auto'),
    )
    .showSuggestionAfterError()
    .exitOverride();

  // A command group named without its subcommand (`assetgen runs`, or `assetgen` alone) is answered
  // by commander with the group's help on stderr, exit 2; with --json that help is not written, so
  // the usage error must say it instead, naming the commands to choose from (see run() below).
  // A group's help asked for a word that is not one of its commands (`runs help nope`, `help runs
  // nope`) is an unknown command, as `runs nope` is: commander's help of the group is not written
  // then either, and run() reports the error (gh: `unknown command "nope" for "gh pr"`, exit 2).
  let missingCommandOf: Command | undefined;
  let unknownHelpOf: Command | undefined;
  program.on('beforeAllHelp', (context: { error: boolean; command: Command }) => {
    if (!context.error) return;
    missingCommandOf = context.command;
    if (helpOfUnknown(context.command) !== undefined) unknownHelpOf = context.command;
  });

  // ── auth ──────────────────────────────────────────────────────────────────────────────────────────
  const auth = program.command('auth').description('store, show and remove credentials');
  auth
    .command('login')
    .description('store an API key (masked prompt on a terminal, or --with-key from stdin) or a session cookie')
    .option('--with-key', 'read the API key from stdin')
    .option('--session', 'read a session cookie (name=value) from stdin')
    .option('--no-verify', 'store without checking it against the service (offline setup)')
    .action(run(async () => (await import('./commands/auth.js')).login));
  auth
    .command('status')
    .description('show where credentials come from, the masked key and the base URL (exit 4 when none)')
    .action(run(async () => (await import('./commands/auth.js')).status));
  auth
    .command('logout')
    .description('remove the stored credentials')
    .action(run(async () => (await import('./commands/auth.js')).logout));

  // ── generation ───────────────────────────────────────────────────────────────────────────────────
  program
    .command('generate')
    .description('generate an image from a prompt and save it')
    .argument('<prompt>', 'what to make, e.g. "rusty sword icon, 32x32 pixel art"')
    .requiredOption('-a, --agent <id>', 'agent that generates (see `assetgen agents`)')
    .option('-o, --output <path>', 'file, or directory to save into (default: current directory); - for stdout')
    .option('--stream', 'stream progress events live (needs a session)')
    .option('-f, --force', 'overwrite an existing file')
    .option(
      '--idempotency-key <key>',
      'reuse the key of an earlier attempt whose answer was lost: its result, not a second charge (if the service honours Idempotency-Key)',
    )
    .option(
      '--variants <n>',
      `make n takes to choose from (1-${MAX_TAKES}): n paid calls, saved as <name>-1.png … (take k's key: <key>-take-<k>)`,
      parseTakes,
    )
    .option('-y, --yes', 'confirm the paid calls of --variants (required without a terminal, and with --json)')
    .action(run(async () => (await import('./commands/generate.js')).generate));

  program
    .command('agents')
    .description('list the agents that generate assets (needs a session)')
    .action(run(async () => (await import('./commands/agents.js')).agents));

  // ── workflows and runs ───────────────────────────────────────────────────────────────────────────
  const workflows = program.command('workflows').description('saved workflows: list and run');
  workflows
    .command('list')
    .description('list saved workflows with their node counts and overridable nodes')
    .action(run(async () => (await import('./commands/workflows.js')).list));
  workflows
    .command('run')
    .description('run a workflow and, unless --no-wait, follow it to the end and save its outputs')
    .argument('<id>', 'workflow id (see `assetgen workflows list`)')
    .option('-s, --set <node=prompt>', 'override the prompt of an overridable node (repeatable)', collect, [])
    .option('--no-wait', 'start the run and print its id without waiting')
    .option('-o, --output <dir>', 'directory for the outputs (default: current directory)')
    .option('-f, --force', 'overwrite existing files')
    .option(
      '--idempotency-key <key>',
      'reuse the key of an earlier attempt whose answer was lost: its result, not a second charge (if the service honours Idempotency-Key)',
    )
    .action(run(async () => (await import('./commands/workflows.js')).runWorkflow));

  const runs = program.command('runs').description('workflow runs: poll or wait');
  runs
    .command('get')
    .description('poll a run once (each poll advances it by one node)')
    .argument('<runId>')
    .action(run(async () => (await import('./commands/runs.js')).get));
  runs
    .command('wait')
    .description('poll a run until it finishes, then save its outputs')
    .argument('<runId>')
    .option('-o, --output <dir>', 'directory for the outputs (default: current directory)')
    .option('-f, --force', 'overwrite existing files')
    .action(run(async () => (await import('./commands/runs.js')).wait));

  // ── video ────────────────────────────────────────────────────────────────────────────────────────
  const video = program.command('video').description(`video jobs (${VIDEO_JOB_COST} credits each, refunded if the job fails)`);
  video
    .command('create')
    .description(`submit a video job (${VIDEO_JOB_COST} credits) and, unless --no-wait, wait for it and save the video`)
    .argument('<prompt>')
    .option('-a, --agent <id>', 'video agent (default: the service default)')
    .option('--duration <seconds>', 'length in seconds', parseSeconds)
    .option('--aspect-ratio <ratio>', 'e.g. 16:9, 1:1, 9:16')
    .option('-y, --yes', `confirm the ${VIDEO_JOB_COST}-credit charge (required without a terminal)`)
    .option('--no-wait', 'submit and print the job id without waiting')
    .option('-o, --output <path>', 'file or directory for the video; - for stdout')
    .option('-f, --force', 'overwrite an existing file')
    .option('--interval <duration>', 'fixed polling interval instead of backoff', parseDuration)
    .option(
      '--idempotency-key <key>',
      'reuse the key of an earlier attempt whose answer was lost: its result, not a second charge (if the service honours Idempotency-Key)',
    )
    .action(run(async () => (await import('./commands/video.js')).create));
  video
    .command('get')
    .description('poll a video job once')
    .argument('<id>')
    .action(run(async () => (await import('./commands/video.js')).get));
  video
    .command('wait')
    .description('wait for a video job to finish and save the video')
    .argument('<id>')
    .option('-o, --output <path>', 'file or directory for the video; - for stdout')
    .option('-f, --force', 'overwrite an existing file')
    .option('--interval <duration>', 'fixed polling interval instead of backoff', parseDuration)
    .action(run(async () => (await import('./commands/video.js')).wait));

  program
    .command('jobs')
    .description('video jobs, workflow runs and image generations started from this machine, with their last known status')
    .addOption(new Option('-n, --limit <count>', 'how many to show').default(20).argParser(parsePositiveInt))
    .action(run(async () => (await import('./commands/jobs.js')).jobs));

  // ── build pipelines (assetgen.yaml → assetgen.lock) ─────────────────────────────────────────────────
  program
    .command('init')
    .description(
      "set up a project: a commented starter assetgen.yaml (never over an existing one), the .gitignore lines, and with --engine the engine's pixel-art defaults (shown as a diff, asked first)",
    )
    .option('-f, --file <path>', 'the manifest to write, or with --engine to read (default: ./assetgen.yaml)')
    .addOption(
      new Option('--engine <engine>', "also set the engine's project defaults: nearest filtering, no mipmaps, lossless").choices(ENGINES),
    )
    .option('-y, --yes', 'write without asking (required without a terminal to change a file that is already there)')
    .option('--dry-run', 'show the changes; write nothing')
    .action(run(async () => (await import('./commands/project/init.js')).init));

  program
    .command('build')
    .description('build what assetgen.yaml lists and assetgen.lock says is new or changed (resuming paid jobs)')
    .argument('[ids...]', 'asset ids or globs such as "icon-*" (default: all)')
    .option('--dry-run', 'print the plan and the estimated cost; call nothing')
    .addOption(new Option('-j, --concurrency <n>', 'assets built at once').default(4).argParser(parsePositiveInt))
    .addOption(
      new Option(
        '--max-credits <n|none>',
        "never spend more than n credits, by the service's answers (exit 8); default: the manifest's budget",
      ).argParser(parseCreditCap),
    )
    .addOption(new Option('--format <format>', 'with --dry-run: the plan as a Markdown summary (for a pull request)').choices(['markdown']))
    .option('--fail-fast', 'stop submitting after the first failure')
    .option('--lock-out <file>', "write this shard's lock there (join them with `assetgen lock merge`)")
    .option('-y, --yes', `confirm the videos in the plan (${VIDEO_JOB_COST} credits each; required without a terminal)`)
    .option('-f, --file <path>', 'the manifest (default: the nearest assetgen.yaml, from here upward)')
    .option('--shard <k/n>', 'only the k-th of n deterministic parts (by a hash of each id), e.g. 2/4')
    .option('--force', 'regenerate the selected assets even when up to date or edited by hand (new charges)')
    .option('--prune', 'delete the unchanged files of assets gone from the manifest')
    .addOption(
      new Option('--more <K>', 'K more takes of the named image assets, a paid call each; earlier takes and the pick kept').argParser(
        parseTakes,
      ),
    )
    .option('--prune-takes', "delete the selected assets' take files that are not picked (no service call)")
    .option('--report <file.html>', 'also write a self-contained HTML gallery of the results (with --dry-run: of the plan)', parseHtmlPath)
    .option(
      '--remote-cache <url>',
      'a shared Turborepo remote-cache server: restore files it holds (0 credits), upload what the build makes (default: ASSETGEN_REMOTE_CACHE_URL)',
    )
    .option(
      '--remote-cache-read-only',
      'restore from the remote cache, never upload to it (or set env ASSETGEN_REMOTE_CACHE_READ_ONLY to 1)',
    )
    .option('--check', 'then run `assetgen check` on the outputs (exit 9 when a checks: rule is broken)')
    .action(run(async () => (await import('./commands/project/build.js')).build));

  program
    .command('check')
    .argument('[ids...]', 'asset ids or globs such as "icon-*" (default: all; each compared with its whole matrix or sheet)')
    .description(
      "measure the output images (alpha, fill, colours, tile seams, outliers) and hold them to the manifest's checks: rules (no service call; exit 9)",
    )
    .option('-f, --file <path>', 'the manifest (default: the nearest assetgen.yaml, from here upward)')
    .action(run(async () => (await import('./commands/project/check.js')).check));

  program
    .command('pick')
    .description("make an asset's output its take k (no service call: post steps re-run from the take, free)")
    .argument('<id>', 'the asset')
    .argument('<k>', 'the take to use (see `.assetgen/candidates/<id>/`)')
    .option('-f, --file <path>', 'the manifest (default: the nearest assetgen.yaml, from here upward)')
    .action(run(async () => (await import('./commands/project/pick.js')).pick));

  program
    .command('report')
    .description('write the HTML gallery of the assets from assetgen.yaml and assetgen.lock alone (no network, no credentials)')
    .option('-f, --file <path>', 'the manifest (default: the nearest assetgen.yaml, from here upward)')
    // Checked by the command, which knows whether --disclosure (which takes no -o) was given too.
    .option('-o, --output <file.html>', 'where to write it (default: assetgen-report.html next to the manifest)')
    .option('--force', 'replace an -o file that is not a report assetgen wrote')
    .option(
      '--disclosure',
      'instead, print the list of AI-generated files (Markdown; --json: one document), for store and legal disclosures',
    )
    .action(run(async () => (await import('./commands/project/gallery.js')).report));

  program
    .command('takes')
    .description(
      "list an asset's takes from assetgen.lock (numbers, sizes, what each looks like) and write their contact sheet (no network)",
    )
    .argument('<id>', 'an asset built with takes (`variants: N` in assetgen.yaml)')
    .option(
      '--contact-sheet <file.png>',
      'where to write the contact sheet (default: .assetgen/takes/<id>.png), its layout beside it as .json',
    )
    .option('--force', 'replace a --contact-sheet file (or its .json) that assetgen did not write')
    .option('-f, --file <path>', 'the manifest (default: the nearest assetgen.yaml, from here upward)')
    .action(run(async () => (await import('./commands/project/takes.js')).takes));

  const lock = program.command('lock').description('the lockfile, assetgen.lock: what each asset was built from and into');
  lock
    .command('merge')
    .description('join the locks of a sharded build into assetgen.lock (a conflicting or stale asset is an error; nothing is written)')
    .argument('<files...>', 'lock files written by the shards')
    .option('-f, --file <path>', 'the manifest whose assetgen.lock receives them (default: the nearest assetgen.yaml)')
    .action(run(async () => (await import('./commands/project/lock.js')).merge));

  // ── coding agents ────────────────────────────────────────────────────────────────────────────────
  function installOptions(command: Command): Command {
    return command
      .option('-a, --agent <id>', 'agent to install for (repeatable; see `assetgen skills list`)', collect, [])
      .option('--all-detected', 'every coding agent detected on this machine')
      .addOption(new Option('--scope <scope>', 'project (default) or user').choices(['project', 'user']))
      .option('--project-dir <dir>', 'project root for project scope (default: current directory)')
      .option('-y, --yes', 'no confirmation prompt')
      .option('--dry-run', 'print the plan, write nothing')
      .option('-f, --force', 'replace files you edited (and files not written by assetgen)')
      .option('--mcp', "also register the MCP server (`assetgen mcp`) in each agent's MCP configuration");
  }
  const skills = program.command('skills').description('the assetgen skill for coding agents: install, update, list, uninstall');
  installOptions(skills.command('install').description('install the skill where your coding agents look')).action(
    run(async () => (await import('./commands/skills.js')).install),
  );
  skills
    .command('uninstall')
    .description('remove exactly the files the installer wrote (edited ones are kept unless --force)')
    .option('-a, --agent <id>', 'only for this agent (repeatable); a copy other agents still use stays', collect, [])
    .addOption(new Option('--scope <scope>', 'only project or only user scope').choices(['project', 'user']))
    .option('--project-dir <dir>', 'only the copies in this project')
    .option('-y, --yes', 'no confirmation prompt')
    .option('--dry-run', 'print what would be removed')
    .option('-f, --force', 'remove files you edited too')
    .action(run(async () => (await import('./commands/skills.js')).uninstall));
  skills
    .command('list')
    .description('where the skill is installed, and which agents are detected')
    .action(run(async () => (await import('./commands/skills.js')).list));
  skills
    .command('update')
    .description('re-render installed skills after an upgrade (edited files are kept, the new version written beside)')
    .option('--dry-run', 'print the plan, write nothing')
    .option('-f, --force', 'replace files you edited')
    .option('-y, --yes', 'no confirmation prompt')
    .action(run(async () => (await import('./commands/skills.js')).update));
  installOptions(program.command('install').description('same as `assetgen skills install`')).action(
    run(async () => (await import('./commands/skills.js')).install),
  );

  // ── MCP ──────────────────────────────────────────────────────────────────────────────────────────
  program
    .command('mcp')
    .description('run an MCP server on stdio: assetgen as tools for MCP clients (Claude Code, Cursor, VS Code, …)')
    .option('--allow-outside', "let tools save outside the server's working directory")
    // The prose is wrapped to the terminal like the rest of the screen; each client's configuration
    // is kept on one line, under the client's name, to be pasted as it is.
    .addHelpText('after', (context) =>
      [
        '',
        wrapLikeHelp(
          context,
          'Stdout carries MCP messages only; logs go to stderr. Credentials come from `assetgen auth login` or ASSETGEN_BASE_URL / ASSETGEN_API_KEY / ASSETGEN_SESSION — never put the key in a client config.',
        ),
        '',
        wrapLikeHelp(context, 'Add it to an MCP client by hand (any client: command "assetgen", args ["mcp"]):'),
        '  Claude Code:',
        '    claude mcp add assetgen -- assetgen mcp',
        '  .mcp.json, .cursor/mcp.json:',
        '    {"mcpServers": {"assetgen": {"command": "assetgen", "args": ["mcp"]}}}',
        '  .vscode/mcp.json:',
        '    {"servers": {"assetgen": {"type": "stdio", "command": "assetgen", "args": ["mcp"]}}}',
        '  ~/.codex/config.toml:',
        '    [mcp_servers.assetgen] command = "assetgen" args = ["mcp"]',
        wrapLikeHelp(
          context,
          'Or let the installer do it: assetgen install --mcp. Try it: npx @modelcontextprotocol/inspector assetgen mcp --mock',
        ),
      ].join('\n'),
    )
    .action(run(async () => (await import('./commands/mcp.js')).mcp as Action));

  // ── offline ──────────────────────────────────────────────────────────────────────────────────────
  program
    .command('demo')
    .description('a guided tour against an in-process bundled mock: image, workflow, video, stream')
    .option('-d, --dir <dir>', 'where to save the files', 'assetgen-demo')
    .option('-f, --force', 'overwrite files from an earlier demo')
    .action(run(async () => (await import('./commands/demo.js')).demo as Action));

  program
    .command('mock')
    .description('start the bundled mock service (prints its URL, an API key and a session cookie)')
    .option('-p, --port <port>', 'port (0 = a free ephemeral port)', parsePort, 0)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--credits <n>', 'starting balance of the seeded account', parseCount)
    .option('--seed <seed>', "seed of the mock's random choices (faults, random video outcomes)")
    .action(run(async () => (await import('./commands/mock.js')).mock as Action));

  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    // What the script asks for at `--agent`: the ids of the last agents list (config/agents-cache.ts).
    .addOption(new Option('--agent-ids <kind>').choices(['image', 'video']).hideHelp())
    .action(run(async () => (await import('./commands/completion.js')).completionOf(program) as Action));

  program.command('version').description('print the version of assetgen (also -v, -V, --version)').action(run(loadVersion));

  attachExamples(program);

  return {
    program,
    async run(argv) {
      jsonErrors = argv.includes('--json');
      exitCode = 0;
      missingCommandOf = undefined;
      unknownHelpOf = undefined;
      try {
        await program.parseAsync(barePreview(withoutHelpForUnknown(program, helpOfSubcommand(program, argv))), { from: 'user' });
        return exitCode;
      } catch (error) {
        if (!(error instanceof CommanderError)) throw error;
        if (error.code === VERSION_DOCUMENT) return await perform(loadVersion, { json: true }, []);
        if (error.exitCode === 0) return 0;
        if (error.code === 'commander.help' && missingCommandOf) {
          const usage = missingCommandError(missingCommandOf);
          if (jsonErrors) host.writeErr(`${JSON.stringify({ error: usage })}\n`);
          else if (unknownHelpOf) host.writeErr(`${errorLine(usage.message)}\n${usage.hint}\n`);
        }
        return 2;
      }
    },
  };
}

/** The CommanderError code that stands for `--version --json` (see the 'option:version' listener). */
const VERSION_DOCUMENT = 'assetgen.versionDocument';

/**
 * `assetgen help video create`, as `gh help pr create`: the help of `video create`. Commander's help
 * command reads one word (it would show `video`'s help), so the line is made `assetgen video help
 * create`, which the group's own help command answers — with the usage error of a word that is not
 * one of its commands (`help video nope`, as `video help nope`: see run()). Only when `help` is the
 * first word of the line; the global options may come anywhere (`--json help video create`: help
 * is help whatever the output mode, as gh's is) and are passed on after the words.
 */
export function helpOfSubcommand(program: Command, argv: readonly string[]): readonly string[] {
  const stop = argv.indexOf('--');
  const end = stop === -1 ? argv.length : stop;
  const words: string[] = [];
  const options: string[] = [];
  for (let i = 0; i < end; i += 1) {
    const arg = argv[i];
    if (!arg.startsWith('-')) words.push(arg);
    else {
      options.push(arg);
      // A global option's value is not a word: `--base-url <url> help video create`.
      if (takesNextAsValue(program, arg, argv[i + 1]) && i + 1 < end) options.push(argv[(i += 1)]);
    }
  }
  if (words[0] !== 'help') return argv;
  const named = words.slice(1);
  // The groups named before the last word: `video` in `help video create`.
  let command = program;
  let groups = 0;
  while (groups < named.length - 1) {
    const sub = command.commands.find((candidate) => candidate.name() === named[groups] || candidate.aliases().includes(named[groups]));
    if (!sub || sub.commands.length === 0) break;
    command = sub;
    groups += 1;
  }
  if (groups === 0) return argv;
  return [...named.slice(0, groups), 'help', ...named.slice(groups), ...options, ...argv.slice(end)];
}

/** Whether the program's option `arg` takes `next` as its value (`--timeout 10m`; `--preview kitty`, not `--preview help`). */
function takesNextAsValue(program: Command, arg: string, next: string | undefined): boolean {
  const option = program.options.find((candidate) => candidate.long === arg || candidate.short === arg);
  if (!option || next === undefined) return false;
  return option.required || (option.optional && (option.argChoices ?? []).includes(next));
}

/**
 * `assetgen nope --help` (or `runs nope -h`): commander would print the nearest help and exit 0,
 * as if the command existed. Without the help flag the line is what it is: an unknown command,
 * exit 2, as without --help (gh does the same). Words are followed only up to the first option.
 */
export function withoutHelpForUnknown(program: Command, argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  if (!words.includes('--help') && !words.includes('-h')) return argv;
  let command = program;
  for (const word of words) {
    if (word.startsWith('-') || command.commands.length === 0) return argv;
    const sub = command.commands.find((candidate) => candidate.name() === word || candidate.aliases().includes(word));
    if (!sub) return argv.filter((arg, i) => (end !== -1 && i >= end) || (arg !== '--help' && arg !== '-h'));
    command = sub;
  }
  return argv;
}

/**
 * The --json usage error for a command group run without one of its commands: `assetgen runs`
 * (missing) or `assetgen help bogus` (unknown), which commander answers with the help on stderr.
 */
function missingCommandError(group: Command): { code: 'usage'; message: string; hint: string; commands: string[]; exitCode: 2 } {
  const commands = group
    .createHelp()
    .visibleCommands(group)
    .map((sub) => sub.name())
    .filter((name) => name !== 'help');
  const path = ['assetgen', commandPath(group)].filter(Boolean).join(' ');
  const named = helpOfUnknown(group);
  const problem = named === undefined ? `missing command after '${path}'` : `unknown command '${named}'`;
  return {
    code: 'usage',
    message: `${problem}: choose one of ${commands.join(', ')}`,
    hint: `See \`${path} --help\`.`,
    commands,
    exitCode: 2,
  };
}

/** The word a group's help was asked for when commander answers with the group's own help (`runs help nope`): not one of its commands. */
function helpOfUnknown(group: Command): string | undefined {
  const [first, named] = group.args;
  return first === 'help' && named !== undefined ? named : undefined;
}

/**
 * `--preview` takes an optional value, and commander gives an optional value the next word
 * whatever it is: `assetgen --preview generate …` or `generate --preview "sword"` would fail as
 * "invalid choice". A bare `--preview` not followed by one of its values is made `--preview=auto`
 * here (up to `--`), so the flag works anywhere on the line; `--preview kitty` keeps its value.
 */
export function barePreview(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) =>
    arg === '--preview' && (end === -1 || i < end) && !(PREVIEW_MODES as readonly string[]).includes(argv[i + 1] ?? '')
      ? '--preview=auto'
      : arg,
  );
}
