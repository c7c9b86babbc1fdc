// The tool call that sends a journalled `video create` again asks as the first call asked: waiting
// for the job (the command line's default, MCP's `wait: true`) or only submitting it (`--no-wait`,
// MCP's default) — a resume that waits would pay for polls the first call never asked for.
import { describe, expect, it } from 'vitest';
import { resubmitToolCall } from '../../src/cli/resume.js';

const words = (...extra: string[]) => ['video', 'create', 'a torch', '--yes', '-o', '/work/out', ...extra, '--idempotency-key', 'k-1'];

describe('resubmitToolCall for a video', () => {
  it('--no-wait → wait: false; without it → wait: true; the key and confirmation kept either way', () => {
    expect(resubmitToolCall(words('--no-wait'), '/work')).toMatchObject({
      tool: 'create_video',
      arguments: { prompt: 'a torch', wait: false, idempotency_key: 'k-1', confirm_credits: 180 },
    });
    expect(resubmitToolCall(words(), '/work')).toMatchObject({
      tool: 'create_video',
      arguments: { prompt: 'a torch', wait: true, idempotency_key: 'k-1', confirm_credits: 180 },
    });
  });
});
