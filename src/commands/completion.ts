// `assetgen completion bash|zsh|fish`: a completion script generated from the command table itself,
// so it always knows every command, option and fixed value. Completing never calls the service.
import type { Command } from 'commander';
import { UsageError } from '../cli/errors.js';
import type { CommandContext } from '../cli/context.js';
import { buildProgram, commandPath } from '../program.cjs';

interface Node {
  path: string;
  /** Options of this command only (the program's own are the global ones). */
  subcommands: { name: string; description: string }[];
  options: { flags: string[]; description: string; choices?: readonly string[]; takesValue: boolean }[];
}

/** Every command of the table with its subcommands and options (global options included). */
function commandTree(): Node[] {
  const { program } = buildProgram({ version: '', execute: async () => 0, writeOut() {}, writeErr() {} });
  const nodes: Node[] = [];
  const walk = (command: Command): void => {
    const options = command.options;
    nodes.push({
      path: commandPath(command),
      subcommands: command.commands.map((sub) => ({ name: sub.name(), description: sub.description() })),
      options: options.map((option) => ({
        flags: [option.short, option.long].filter((flag): flag is string => Boolean(flag)),
        description: option.description,
        choices: option.argChoices,
        takesValue: option.required || option.optional,
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
  const valueCases = nodes
    .flatMap((node) =>
      node.options
        .filter((option) => option.choices)
        .flatMap((option) =>
          option.flags.map(
            (flag) => `    "${node.path}|${flag}") COMPREPLY=($(compgen -W ${quote(option.choices!.join(' '))} -- "$cur")); return ;;`,
          ),
        ),
    )
    .join('\n');
  const needsValue = nodes
    .flatMap((node) =>
      node.options
        .filter((option) => option.takesValue && !option.choices)
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
    const values = option.choices ? ` -x -a ${quote(option.choices.join(' '))}` : option.takesValue ? ' -r' : '';
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

export async function completion(ctx: CommandContext, shell: string): Promise<void> {
  const render = SHELLS[shell as keyof typeof SHELLS];
  if (!render) throw new UsageError(`No completion for "${shell}".`, 'Use bash, zsh or fish.');
  ctx.io.stdout.write(render(commandTree()));
}
