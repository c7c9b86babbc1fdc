// Which inline image protocol the terminal speaks, judged from the environment alone. Nothing is
// ever written to the terminal to ask (no XTVERSION, no DA1, no kitty query): a terminal that did
// not announce itself gets no escape sequence it did not ask for, only a one-line note.
//
// The tables follow what established image viewers use for the same decision (yazi's
// yazi-adapter/src/emulator.rs, chafa's chafa-term-db.c); a terminal not listed is not guessed at.
import type { Env } from '../../config/paths.js';
import { PREVIEW_MODES, type PreviewMode, type PreviewProtocol } from './modes.cjs';

/** The env var that sets a default for --preview. */
export const PREVIEW_ENV = 'ASSETGEN_PREVIEW';

/** TERM_PROGRAM is set by the terminal the shell runs in (each terminal overwrites it). */
const BY_TERM_PROGRAM: Record<string, PreviewProtocol> = {
  'iTerm.app': 'iterm',
  WezTerm: 'iterm', // WezTerm speaks iTerm2's protocol (and sixel); yazi prefers iTerm2's
  mintty: 'iterm',
  ghostty: 'kitty',
  BlackBox: 'sixel',
};

/** TERM values that name one terminal (they survive ssh, unlike TERM_PROGRAM). */
const BY_TERM: Record<string, PreviewProtocol> = {
  'xterm-kitty': 'kitty',
  'xterm-ghostty': 'kitty',
  foot: 'sixel',
  'foot-extra': 'sixel',
  'foot-direct': 'sixel',
  mlterm: 'sixel',
  yaft: 'sixel',
  'yaft-256color': 'sixel',
  contour: 'sixel',
};

export type Detection = { protocol: PreviewProtocol } | { protocol?: undefined; reason: string };

const TRY = 'try --preview=kitty|iterm|sixel';
const set = (value: string | undefined): value is string => value !== undefined && value !== '';

/** A terminal multiplexer between us and the terminal: it hides (or mangles) the outer terminal. */
export function multiplexer(env: Env): string | undefined {
  if (set(env.TMUX) || /^tmux/.test(env.TERM ?? '') || env.TERM_PROGRAM === 'tmux') return 'tmux';
  if (set(env.STY) || /^screen/.test(env.TERM ?? '')) return 'screen';
  if (set(env.ZELLIJ)) return 'zellij';
  return undefined;
}

/**
 * The protocol `--preview` (auto) uses. Order matters: TERM_PROGRAM and TERM are replaced by each
 * terminal, while KITTY_WINDOW_ID and LC_TERMINAL are only ever added, so they can leak from an
 * outer terminal into one started from it; they are consulted last, and not at all when
 * TERM_PROGRAM names a terminal we do not know to draw images (Apple Terminal, VS Code, …).
 */
export function detectProtocol(env: Env): Detection {
  // Inside tmux/screen/zellij the variables describe whichever terminal started the server, and
  // the multiplexer drops or rewrites image sequences unless configured to pass them through:
  // never guess there. An explicit --preview=<protocol> still writes what was asked.
  const mux = multiplexer(env);
  if (mux) return { reason: `inside ${mux} the terminal cannot be told from the environment (${TRY} if it passes images through)` };
  if (env.TERM === 'dumb') return { reason: `TERM=dumb (${TRY})` };
  const program = env.TERM_PROGRAM;
  if (set(program)) {
    const byProgram = BY_TERM_PROGRAM[program];
    if (byProgram) return { protocol: byProgram };
  }
  const byTerm = BY_TERM[env.TERM ?? ''];
  if (byTerm) return { protocol: byTerm };
  // A TERM that says "sixel" (a custom terminfo entry, say) is the user declaring it.
  if (/sixel/i.test(env.TERM ?? '')) return { protocol: 'sixel' };
  if (!set(program)) {
    if (set(env.KITTY_WINDOW_ID)) return { protocol: 'kitty' };
    // iTerm2 sets LC_TERMINAL, which ssh forwards (LC_*) where TERM_PROGRAM is lost.
    if (env.LC_TERMINAL === 'iTerm2') return { protocol: 'iterm' };
  }
  return { reason: `no inline image protocol detected (${TRY})` };
}

export type ModeChoice = { mode: PreviewMode } | { mode?: undefined; note: string };

/**
 * The mode in force: the flag, else ASSETGEN_PREVIEW, else off (previews are opt-in). A bad
 * ASSETGEN_PREVIEW never fails a command that has already paid for its asset: it is a note.
 */
export function resolveMode(flag: string | undefined, env: Env): ModeChoice {
  if (flag !== undefined) return isMode(flag) ? { mode: flag } : { note: `--preview=${flag} is not one of ${PREVIEW_MODES.join('|')}` };
  const fromEnv = env[PREVIEW_ENV]?.trim().toLowerCase();
  if (!fromEnv) return { mode: 'off' };
  return isMode(fromEnv) ? { mode: fromEnv } : { note: `${PREVIEW_ENV}=${fromEnv} is not one of ${PREVIEW_MODES.join('|')}` };
}

const isMode = (value: string): value is PreviewMode => (PREVIEW_MODES as readonly string[]).includes(value);
