import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOverrides } from '../../src/commands/workflows.js';
import { JobJournal } from '../../src/config/journal.js';
import { maskSecret } from '../../src/client/redact.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { MAX_DURATION_MS, parseCount, parseDuration, parsePort, parsePositiveInt, parseSeconds } from '../../src/cli/values.cjs';
import { resolveOutputPath } from '../../src/cli/save.js';
import { extensionFor, safeFileName } from '../../src/files/media.js';
import { sanitizeLine, sanitizeText } from '../../src/ui/sanitize.js';

describe('sanitizeText', () => {
  it('strips escape sequences and control characters from server text', () => {
    expect(sanitizeText('ok\u001b[2J\u001b[31mred\u001b[0m\u001b]0;title\u0007 done\u0008\r')).toBe('okred done');
    expect(sanitizeText('line one\nline two\ttab')).toBe('line one\nline two\ttab');
    expect(sanitizeLine('a\nb\tc')).toBe('a b c');
  });
});

describe('safeFileName', () => {
  it('keeps ids, replaces unsafe characters and avoids Windows reserved names', () => {
    expect(safeFileName('gen_abc123.png')).toBe('gen_abc123.png');
    expect(safeFileName('../../etc/passwd')).toBe('_.._etc_passwd');
    expect(safeFileName('a:b*c?.png')).toBe('a_b_c_.png');
    expect(safeFileName('CON.png')).toBe('asset_CON.png');
    expect(safeFileName('nul')).toBe('asset_nul');
    expect(safeFileName('x'.repeat(300)).length).toBe(120);
    // Shortened, a media extension is kept.
    expect(safeFileName(`${'x'.repeat(300)}.webm`)).toBe(`${'x'.repeat(115)}.webm`);
  });
});

describe('output paths', () => {
  it('picks the extension from the content type, then the URL', () => {
    expect(extensionFor('http://h/f', 'image/png; charset=binary', '.bin')).toBe('.png');
    expect(extensionFor('http://h/files/v.webm', undefined, '.mp4')).toBe('.webm');
    expect(extensionFor(undefined, undefined, '.mp4')).toBe('.mp4');
  });

  it('treats an existing directory or a trailing slash as a directory', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-out-'));
    try {
      expect(resolveOutputPath(undefined, dir, 'a.png')).toBe(path.join(dir, 'a.png'));
      expect(resolveOutputPath('-', dir, 'a.png')).toBe('-');
      expect(resolveOutputPath('.', dir, 'a.png')).toBe(path.join(dir, 'a.png'));
      expect(resolveOutputPath('new/', dir, 'a.png')).toBe(path.join(dir, 'new', 'a.png'));
      expect(resolveOutputPath('icon.png', dir, 'a.png')).toBe(path.join(dir, 'icon.png'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseDuration', () => {
  it('reads units and bare seconds', () => {
    expect(parseDuration('1500ms')).toBe(1500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('5')).toBe(5000);
    expect(() => parseDuration('soon')).toThrow(/number with a unit/);
  });

  it('refuses durations a timer cannot hold (they would fire at once) and zero', () => {
    expect(() => parseDuration('600h')).toThrow(/under 24 days/);
    expect(parseDuration(`${MAX_DURATION_MS}ms`)).toBe(MAX_DURATION_MS);
    expect(() => parseDuration('0s')).toThrow(/at least 1ms/);
  });
});

describe('option value parsers', () => {
  it('accept what they document and refuse the rest', () => {
    expect(parsePort('0')).toBe(0);
    expect(parsePort('65535')).toBe(65535);
    for (const bad of ['65536', '-1', '1.5', 'http', '']) expect(() => parsePort(bad)).toThrow(/0-65535/);
    expect(parseCount('0')).toBe(0);
    for (const bad of ['-3', '2.5', 'lots', '1e3']) expect(() => parseCount(bad)).toThrow(/whole number/);
    expect(parsePositiveInt('20')).toBe(20);
    expect(() => parsePositiveInt('0')).toThrow(/≥ 1/);
    expect(parseSeconds('4')).toBe(4);
    expect(parseSeconds('2.5')).toBe(2.5);
    for (const bad of ['0', '-1', 'four', 'Infinity']) expect(() => parseSeconds(bad)).toThrow(/positive number/);
  });
});

describe('parseOverrides', () => {
  it('splits at the first = and rejects malformed or repeated nodes', () => {
    expect(parseOverrides(['character=a knight = brave', 'theme=ice'])).toEqual({ character: 'a knight = brave', theme: 'ice' });
    expect(() => parseOverrides(['=x'])).toThrow(/--set/);
    expect(() => parseOverrides(['nodeonly'])).toThrow(/--set/);
    expect(() => parseOverrides(['a=1', 'a=2'])).toThrow(/twice/);
  });
});

describe('maskSecret', () => {
  it('shows the prefix and the last four characters only', () => {
    expect(maskSecret('agk_0123456789abcdefghij')).toBe('agk_…ghij');
    expect(maskSecret('short')).toBe('*****');
  });
});

describe('JobJournal', () => {
  it('folds updates into one entry per job, newest first, and survives a torn line', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-journal-'));
    try {
      const journal = new JobJournal({ ASSETGEN_STATE_DIR: dir });
      journal.recordSubmitted({ kind: 'video', id: 'vid_1', baseUrl: 'http://a', state: 'queued', label: 'torch' });
      journal.recordSubmitted({ kind: 'run', id: 'run_1', baseUrl: 'http://a', state: 'queued' });
      journal.recordUpdate('video', 'vid_1', 'http://a', { state: 'failed', refunded: true });
      fs.appendFileSync(journal.file!, '{"kind":"vid');
      const entries = journal.list();
      expect(entries).toHaveLength(2);
      expect(journal.find('video', 'vid_1')).toMatchObject({ state: 'failed', refunded: true, label: 'torch' });
      expect(fs.statSync(journal.file!).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps mock jobs in memory only', () => {
    const journal = new JobJournal({ ASSETGEN_STATE_DIR: '/nonexistent/should-not-be-created' }, { memoryOnly: true });
    journal.recordSubmitted({ kind: 'run', id: 'run_x', baseUrl: 'http://m', state: 'queued' });
    expect(journal.list()).toHaveLength(1);
    expect(journal.file).toBeNull();
  });
});

describe('exit codes', () => {
  it('are documented in docs/cli.md exactly as the table in src/exit-codes.ts', () => {
    const doc = fs.readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Exit codes'));
    const documented = [...section.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    expect(documented.sort((a, b) => a - b)).toEqual(Object.values(EXIT).sort((a, b) => a - b));
  });
});
