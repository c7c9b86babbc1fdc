// Secrets never reach a trace, an error or a printed URL: the one place that masks them.
import type { HeaderMap } from './values.js';

/** `agk_…wxyz`: enough to tell two keys apart, too little to use. */
export function maskSecret(secret: string): string {
  if (secret.length <= 8) return '*'.repeat(secret.length);
  const underscore = secret.lastIndexOf('_', 12);
  const prefix = underscore > 0 ? secret.slice(0, underscore + 1) : secret.slice(0, 3);
  return `${prefix}…${secret.slice(-4)}`;
}

function maskCookie(value: string): string {
  return value
    .split(';')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq < 0 ? part : `${part.slice(0, eq)}=${maskSecret(part.slice(eq + 1).trim())}`;
    })
    .join(';');
}

/** Headers for a trace, secrets masked. */
export function redactHeaders(headers: HeaderMap): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') {
      const space = value.indexOf(' ');
      out[name] = space > 0 ? `${value.slice(0, space)} ${maskSecret(value.slice(space + 1))}` : maskSecret(value);
    } else if (lower === 'cookie' || lower === 'set-cookie') {
      out[name] = maskCookie(value);
    } else if (lower === 'x-api-key') {
      out[name] = maskSecret(value);
    } else {
      out[name] = value;
    }
  }
  return out;
}

const SECRET_QUERY = /(key|token|secret|sig|signature|password|auth|session|credential)/i;

/** A URL fit to print: no user or password, and secret-looking query values masked. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/\/\/[^/@\s]*@/, '//');
  }
  parsed.username = '';
  parsed.password = '';
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_QUERY.test(name)) parsed.searchParams.set(name, '***');
  }
  return parsed.href;
}
