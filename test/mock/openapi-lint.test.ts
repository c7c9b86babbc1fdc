// docs/openapi.yaml passes Redocly's lint (the recommended rules, redocly.yaml) with no error and no
// warning. Offline: no usage data, no update check (env and redocly.yaml both say so).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = path.join(path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

describe('npx @redocly/cli lint docs/openapi.yaml', () => {
  it('reports 0 errors and 0 warnings', () => {
    const result = spawnSync(process.execPath, [CLI, 'lint', 'docs/openapi.yaml', '--format=json'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    expect(result.error).toBeUndefined();
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    const problems = report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`).join('\n');
    expect(report.totals, problems).toMatchObject({ errors: 0, warnings: 0 });
    expect(result.status, result.stderr).toBe(0);
  });
});
