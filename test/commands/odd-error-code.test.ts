// A service error whose `code` is not one assetgen accepts (docs/openapi.yaml: lower-case words
// joined by `_`): too long, with control or bidirectional characters, not a string. The message is
// still what the reader gets, bounded and printable; the odd code is left out of `code` (the
// status's own stands) and quoted short and escaped after the message; the exit code is the
// status's, as docs/cli.md ("Exit codes") says. Through the real CLI, on the terminal and `--json`.
import { describe, expect, it } from 'vitest';
import { jsonError, runInProcess } from '../support/cli.js';
import { json, type Handler, useScriptedService } from '../support/http.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: what a report must not carry
const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** A whole failure, message and note and hint, stays within this. */
const REPORT_BOUND = 600;

interface Odd {
  name: string;
  code: unknown;
  /** The note after the message, as printed. */
  note: string;
}

const ODD: Odd[] = [
  {
    name: 'a 5,000-character code',
    code: 'x'.repeat(5000),
    note: `(error code not understood: "${'x'.repeat(32)}…" (5,000 characters))`,
  },
  {
    name: 'a code with escape sequences, a bell and a bidirectional override',
    code: 'bad\u001b[2J\u001b]0;owned\u0007\u202ecode',
    note: '(error code not understood: "bad\\u001b[2J\\u001b]0;owned\\u0007\\u202ecode")',
  },
  { name: 'a code that is an object', code: { nested: { deeper: 'x'.repeat(2000) } }, note: '(error code not understood: an object)' },
  { name: 'a code with spaces', code: 'Something Went Wrong', note: '(error code not understood: "Something Went Wrong")' },
];

/** Each status and what the reader gets for it: the exit code, and the code `--json` gives. */
const STATUSES = [
  { status: 400, exitCode: 1, code: 'http_400' },
  { status: 401, exitCode: 4, code: 'http_401' },
  { status: 402, exitCode: 5, code: 'insufficient_credits' },
] as const;

const answering =
  (status: number, code: unknown): Handler =>
  (_req, res) =>
    json(res, status, { error: { code, message: 'Readable message', requestId: 'req_odd1' } });

const GENERATE = ['generate', 'x', '-a', 'sprite-artist'];

function expectPrintable(report: string): void {
  expect(report.length).toBeLessThan(REPORT_BOUND);
  expect(report).not.toMatch(UNPRINTABLE);
  expect(report).not.toMatch(/x{100}|Raw response|nested|deeper/);
}

describe('an error answer whose code assetgen does not accept', () => {
  const service = useScriptedService(runInProcess);

  for (const odd of ODD) {
    for (const { status, exitCode, code } of STATUSES) {
      it(`${odd.name}, HTTP ${status}: the message with the code quoted short, code ${code}, exit ${exitCode}`, async () => {
        const human = await service.against(answering(status, odd.code), GENERATE);
        expect(human.code, human.stderr).toBe(exitCode);
        expect(human.stdout).toBe('');
        expect(human.stderr).toContain(`error: Readable message ${odd.note}\n`);
        expect(human.stderr).toContain(`HTTP ${status}, request id req_odd1`);
        expectPrintable(human.stderr);
        await service.server.close();

        const machine = await service.against(answering(status, odd.code), [...GENERATE, '--json']);
        expect(machine.code, machine.stderr).toBe(exitCode);
        expect(machine.stdout).toBe('');
        expectPrintable(machine.stderr);
        expect(jsonError(machine)).toMatchObject({
          code,
          message: `Readable message ${odd.note}`,
          exitCode,
          status,
          requestId: 'req_odd1',
        });
      });
    }
  }

  it('a code of the documented shape is kept as it is, the message without a note', async () => {
    const machine = await service.against(answering(400, 'invalid_request'), [...GENERATE, '--json']);
    expect(machine.code, machine.stderr).toBe(1);
    expect(jsonError(machine)).toMatchObject({ code: 'invalid_request', message: 'Readable message', exitCode: 1, status: 400 });
  });

  it('a request id of 5,000 characters is left out, the message kept', async () => {
    const handler: Handler = (_req, res) =>
      json(res, 400, { error: { code: 'invalid_request', message: 'Readable message', requestId: `req_${'r'.repeat(5000)}` } });
    const machine = await service.against(handler, [...GENERATE, '--json']);
    expect(machine.code, machine.stderr).toBe(1);
    const error = jsonError(machine);
    expect(error).toMatchObject({ code: 'invalid_request', message: 'Readable message', status: 400 });
    expect(error.requestId).toBeUndefined();
    expect(machine.stderr.length).toBeLessThan(REPORT_BOUND);
  });

  it('a stream error event with a 5,000-character code: the message, the code left out (generation_failed), exit 6', async () => {
    const handler: Handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: error\ndata: ${JSON.stringify({ error: { code: 'x'.repeat(5000), message: 'Readable message' } })}\n\n`);
    };
    const machine = await service.against(handler, [...GENERATE, '--stream', '--json'], { ASSETGEN_SESSION: 'sess_odd' });
    expect(machine.code, machine.stderr).toBe(6);
    expectPrintable(machine.stderr);
    expect(jsonError(machine)).toMatchObject({
      code: 'generation_failed',
      message: `The generation failed: Readable message ${ODD[0]!.note}`,
      exitCode: 6,
    });
  });
});
