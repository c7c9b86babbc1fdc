// `assetgen completion bash|zsh|fish`: a completion script generated from the command table itself,
// so it always knows every command, option and fixed value. Completing never calls the service:
// `--agent` offers the coding agents of the installer's table (install, skills) or the ids of the
// last agents list the service gave (generate, video create; config/agents-cache.ts), never files.
import type { Command } from 'commander';
import { UsageError } from '../cli/errors.js';
import type { CommandContext } from '../cli/context.js';
import { readCachedAgents } from '../config/agents-cache.js';
import { CODING_AGENTS } from '../installer/agents.js';
import { commandPath } from '../cli/help.cjs';

interface Node {
  path: string;
  /** Options of this command only (the program's own are the global ones). */
  subcommands: { name: string; description: string }[];
  options: { flags: string[]; description: string; choices?: readonly string[]; takesValue: boolean; agents?: AgentValues }[];
}

/** What `--agent` takes: a coding agent of the installer, or a service agent of a kind (from the cache). */
type AgentValues = { installer: readonly string[] } | { cached: 'image' | 'video' };

function agentValues(path: string, long: string | undefined): AgentValues | undefined {
  if (long !== '--agent') return undefined;
  if (path === 'install' || path.startsWith('skills ')) return { installer: CODING_AGENTS.map((agent) => agent.id) };
  if (path === 'generate') return { cached: 'image' };
  if (path === 'video create') return { cached: 'video' };
  return undefined;
}

/** The shell words that print the cached ids of one kind (errors, such as a broken config, say nothing). */
const cachedIds = (shell: string, kind: string): string =>
  `command assetgen completion ${shell} --agent-ids ${kind} </dev/null 2>/dev/null`;

/** Every command of the table with its subcommands and options (global options included). */
function commandTree(program: Command): Node[] {
  const nodes: Node[] = [];
  const walk = (command: Command): void => {
    const path = commandPath(command);
    nodes.push({
      path,
      subcommands: command.commands.map((sub) => ({ name: sub.name(), description: sub.description() })),
      options: command.options
        .filter((option) => !option.hidden)
        .map((option) => ({
          flags: [option.short, option.long].filter((flag): flag is string => Boolean(flag)),
          description: option.description,
          choices: option.argChoices,
          takesValue: option.required || option.optional,
          agents: agentValues(path, option.long),
        })),
    });
    command.commands.forEach(walk);
  };
  walk(program);
  return nodes;
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

export function bashScript(nodes: Node[]): string {
  const globals = nodes[0].options;
  const globalFlags = globals.flatMap((option) => option.flags).join(' ');
  const subcommandCases = nodes.flatMap((node) => node.subcommands.map((sub) => `"${node.path}|${sub.name}"`)).join('|');
  const listCases = nodes
    .map((node) => {
      const subs = node.subcommands.map((sub) => sub.name).join(' ');
      const opts = node.path ? node.options.flatMap((option) => option.flags).join(' ') : '';
      return `    "${node.path}") subs=${quote(subs)}; opts=${quote(opts)} ;;`;
    })
    .join('\n');
  // An agent id is never a file: bash's fallback to file names (-o default) is turned off there.
  const agentWords = (agents: AgentValues): string =>
    'installer' in agents ? quote(agents.installer.join(' ')) : `"$(${cachedIds('bash', agents.cached)})"`;
  const valueCases = nodes
    .flatMap((node) =>
      node.options.flatMap((option) =>
        option.flags.flatMap((flag) =>
          option.choices
            ? [`    "${node.path}|${flag}") COMPREPLY=($(compgen -W ${quote(option.choices.join(' '))} -- "$cur")); return ;;`]
            : option.agents
              ? [
                  `    "${node.path}|${flag}") compopt +o default +o bashdefault 2>/dev/null; COMPREPLY=($(compgen -W ${agentWords(option.agents)} -- "$cur")); return ;;`,
                ]
              : [],
        ),
      ),
    )
    .join('\n');
  const needsValue = nodes
    .flatMap((node) =>
      node.options
        .filter((option) => option.takesValue && !option.choices && !option.agents)
        .flatMap((option) => option.flags.map((flag) => `"${node.path}|${flag}"`)),
    )
    .join('|');
  return `# assetgen completion for bash. Install: assetgen completion bash > ~/.local/share/bash-completion/completions/assetgen
_assetgen() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" word i subs="" opts=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "$path|$word" in
      ${subcommandCases || '"-|-"'}) path="\${path:+$path }$word" ;;
    esac
  done
  case "$path|$prev" in
${valueCases}
    ${needsValue || '"-|-"'}) return ;;
  esac
  case "$path" in
${listCases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts ${globalFlags}" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  fi
}
complete -o default -o bashdefault -F _assetgen assetgen
`;
}

export function zshScript(nodes: Node[]): string {
  return `#compdef assetgen
# assetgen completion for zsh (through zsh's bash completion support).
# Install: assetgen completion zsh > "\${fpath[1]}/_assetgen", or: source <(assetgen completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(nodes)}`;
}

export function fishScript(nodes: Node[]): string {
  const lines = [
    '# assetgen completion for fish. Install: assetgen completion fish > ~/.config/fish/completions/assetgen.fish',
    'complete -c assetgen -f',
  ];
  const all = new Set(nodes.flatMap((node) => node.subcommands.map((sub) => sub.name)));
  const optionLine = (condition: string | undefined, option: Node['options'][number]): string => {
    const flags = option.flags.map((flag) => (flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`)).join(' ');
    const values = option.choices
      ? ` -x -a ${quote(option.choices.join(' '))}`
      : option.agents
        ? ` -x -a ${quote('installer' in option.agents ? option.agents.installer.join(' ') : `(${cachedIds('fish', option.agents.cached)})`)}`
        : option.takesValue
          ? ' -r'
          : '';
    return `complete -c assetgen${condition ? ` -n ${quote(condition)}` : ''} ${flags}${values} -d ${quote(option.description)}`;
  };
  for (const option of nodes[0].options) lines.push(optionLine(undefined, option));
  for (const node of nodes) {
    const words = node.path ? node.path.split(' ') : [];
    // The command line has seen exactly this path: its last word, and none of its subcommands yet.
    const condition = words.length
      ? `__fish_seen_subcommand_from ${words.at(-1)}${node.subcommands.length ? `; and not __fish_seen_subcommand_from ${node.subcommands.map((sub) => sub.name).join(' ')}` : ''}`
      : `not __fish_seen_subcommand_from ${[...all].join(' ')}`;
    for (const sub of node.subcommands)
      lines.push(`complete -c assetgen -n ${quote(condition)} -a ${quote(sub.name)} -d ${quote(sub.description)}`);
    if (node.path) for (const option of node.options) lines.push(optionLine(condition, option));
  }
  return `${lines.join('\n')}\n`;
}

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

/**
 * The command body of `assetgen completion`, for the command table it belongs to: the table hands
 * itself over (program.cts), so this module never imports the table that loads it.
 */
export const completionOf =
  (program: Command) =>
  async (ctx: CommandContext, shell: string, options: { agentIds?: 'image' | 'video' } = {}): Promise<void> => {
    const render = SHELLS[shell as keyof typeof SHELLS];
    if (!render) throw new UsageError(`No completion for "${shell}".`, 'Use bash, zsh or fish.');
    if (options.agentIds) return printCachedAgentIds(ctx, options.agentIds);
    ctx.io.stdout.write(render(commandTree(program)));
  };

/** The ids of the configured service's cached agents list, of `kind` (or of no stated kind), one a line. */
function printCachedAgentIds(ctx: CommandContext, kind: 'image' | 'video'): void {
  const baseUrl = ctx.credentials().baseUrl?.value;
  const cached = baseUrl ? readCachedAgents(ctx.env, baseUrl) : undefined;
  for (const agent of cached?.agents ?? []) {
    if (!agent.kind || agent.kind === kind) ctx.io.stdout.write(`${agent.id}\n`);
  }
}
