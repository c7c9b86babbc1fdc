// docs/mock-server.md states the same facts as the code: seeded agents and workflows, prices,
// settings and their defaults, limits, error codes.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_PREFIX,
  DEFAULT_CREDITS,
  ERROR_CODES,
  MAX_BODY_BYTES,
  MAX_PROMPT_LENGTH,
  SESSION_COOKIE_NAME,
} from '../../src/mock/constants.js';
import { PNG_BYTES } from '../../src/mock/media/png.js';
import { PRICES } from '../../src/mock/prices.js';
import { AGENTS, DEFAULT_VIDEO_AGENT, WORKFLOWS } from '../../src/mock/seed.js';
import { DEFAULT_CONFIG } from '../../src/mock/state.js';

const doc = fs.readFileSync(new URL('../../docs/mock-server.md', import.meta.url), 'utf8');

/** Rows of the first markdown table after a line containing `heading`. */
function table(heading: string): string[][] {
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => line.includes(heading));
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    const trimmed = line.trim();
    if (trimmed.startsWith('|')) {
      inTable = true;
      const cells = trimmed
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim());
      if (!cells.every((cell) => /^-+$/.test(cell))) rows.push(cells);
    } else if (inTable) break;
  }
  return rows.slice(1);
}

describe('docs/mock-server.md', () => {
  it('lists the seeded agents with their kinds, and the default video agent', () => {
    const rows = table('**Agents**');
    expect(rows.map(([id, kind]) => [id!.replaceAll('`', ''), kind!.split(' ')[0]])).toEqual(AGENTS.map((a) => [a.id, a.kind]));
    expect(rows.find(([id]) => id === `\`${DEFAULT_VIDEO_AGENT}\``)?.[1]).toContain('default');
  });

  it('lists the seeded workflows with their nodes and overridable nodes', () => {
    const rows = table('**Workflows**');
    expect(rows.map(([id]) => id!.replaceAll('`', ''))).toEqual(WORKFLOWS.map((w) => w.id));
    for (const [id, nodes, overridable] of rows) {
      const workflow = WORKFLOWS.find((w) => `\`${w.id}\`` === id)!;
      for (const node of workflow.nodes) expect(nodes, `${id} ${node.id}`).toContain(node.id);
      expect(overridable!.replaceAll('`', '').split(/,\s*/)).toEqual(workflow.nodes.filter((n) => n.overridable).map((n) => n.id));
    }
  });

  it('gives the prices of src/mock/prices.ts', () => {
    const rows = table('## Prices');
    const row = (text: string) => rows.find(([call]) => call!.includes(text))!;
    expect(row('POST /api/v1/generate').slice(1)).toEqual([String(PRICES.generation), String(PRICES.generation)]);
    expect(row('/run').slice(1)).toEqual([`${PRICES.runPerNode} per node of the workflow`, 'same']);
    expect(row('POST /api/v1/video').slice(1)).toEqual([String(PRICES.video), String(PRICES.video)]);
    expect(row('any other call').slice(1)).toEqual([String(PRICES.keyCall), String(PRICES.sessionCall)]);
  });

  it('gives the settings of /__mock/config with their defaults', () => {
    const rows = table('Settings of `/__mock/config`');
    const defaults = Object.fromEntries(rows.map(([name, value]) => [name!.replaceAll('`', ''), value]));
    expect(Object.keys(defaults).sort()).toEqual(['credits', ...Object.keys(DEFAULT_CONFIG), 'seed'].sort());
    expect(defaults.credits).toBe(String(DEFAULT_CREDITS));
    for (const key of ['videoSteps', 'videoPollAfterMs', 'streamStepMs', 'latencyMs'] as const)
      expect(defaults[key], key).toBe(String(DEFAULT_CONFIG[key]));
    expect(defaults.videoOutcome).toBe(`\`"${DEFAULT_CONFIG.videoOutcome}"\``);
    expect(JSON.parse(defaults.faults!.replaceAll('`', ''))).toEqual(DEFAULT_CONFIG.faults);
    expect(JSON.parse(defaults.idempotency!.replaceAll('`', ''))).toEqual(DEFAULT_CONFIG.idempotency);
  });

  it('states the constants and every error code the handlers use', () => {
    expect(doc).toContain(`\`${API_KEY_PREFIX}\``);
    expect(doc).toContain(`\`${SESSION_COOKIE_NAME}\``);
    expect(doc).toContain(`${MAX_BODY_BYTES / 1024} KiB`);
    expect(doc).toContain(`${MAX_PROMPT_LENGTH} characters`);
    expect(doc).toContain(`${DEFAULT_CREDITS} credits`);
    expect(doc).toContain(`always ${PNG_BYTES} bytes`);
    // ERROR_CODES is the type of every code the handlers can answer with (the compiler checks it).
    const codes = new Set<string>(ERROR_CODES);
    expect(codes.size).toBeGreaterThan(15);
    const errorTable = table('## Errors')
      .map(([, code]) => code)
      .join(' ');
    for (const code of codes) expect(errorTable, code).toContain(`\`${code}\``);
  });
});
