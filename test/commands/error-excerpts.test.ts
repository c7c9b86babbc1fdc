// What a failure quotes of a hostile service, on every path: the terminal, `--json` and MCP tool
// results, for `generate` and `runs wait`. A 10 MiB error message, a 5 MiB body that is not JSON,
// a binary body, an HTML page, a gzip bomb and a charge of -1e20 each give a bounded, printable
// excerpt with the size stated (docs/cli.md, "Limits"), exit 1, and nothing called money or paid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, runInProcess, tempHome } from '../support/cli.js';
import { gzipBomb, json, KEY, startServer, type Handler, type TestServer, useScriptedService } from '../support/http.js';
import { startMcp, type McpSession } from '../support/mcp.js';

const MiB = 2 ** 20;
/** The excerpt's 1 KiB, the words around it and the hints: a whole failure stays within this. */
const REPORT_BOUND = 4096;
/** One quoted field (a message, `raw`): the 1 KiB excerpt and its size statement. */
const FIELD_BOUND = 1024 + 200;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control bytes other than the line breaks of the report
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
/** Money words: a charge printed, or a job said to be paid for. */
const MONEY = /Charged|charged -|paid for|is paid|100000000000000000000 credits/;

const HTML = `<!doctype html><html><head><title>502 Bad Gateway</title></head><body>${'<p>upstream timed out</p>\n'.repeat(2000)}</body></html>`;
const BINARY = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256));
const BOMB = gzipBomb(200);

interface Hostile {
  name: string;
  handler: Handler;
  /** How the report states the size of what was sent (or, for the charge, why it was refused). */
  stated: RegExp;
}

const HOSTILE: Hostile[] = [
  {
    name: 'a 10 MiB error message (JSON)',
    handler: (_req, res) => json(res, 400, { error: { code: 'invalid_request', message: 'M'.repeat(10 * MiB) } }),
    stated: /M{100}… \(10,485,\d{3} bytes; first 1,024 shown\)/,
  },
  {
    name: 'a 5 MiB body that is not JSON',
    handler: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 5 * MiB });
      res.end(Buffer.alloc(5 * MiB, 'x'));
    },
    stated: /x{100}… \(5,242,880 bytes; first 1,024 shown\)/,
  },
  {
    name: 'a binary body',
    handler: (_req, res) => {
      res.writeHead(400, { 'content-type': 'application/octet-stream', 'content-length': BINARY.length });
      res.end(BINARY);
    },
    stated: /\[binary, 4,096 bytes: 00 01 02 03 04 05 06 07 …\]/,
  },
  {
    name: 'an HTML page',
    handler: (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML) });
      res.end(HTML);
    },
    stated: new RegExp(
      `<title>502 Bad Gateway</title>.*… \\(${Buffer.byteLength(HTML).toLocaleString('en-US')} bytes; first 1,024 shown\\)`,
    ),
  },
  {
    name: 'a gzip-bombed JSON error',
    handler: (_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': BOMB.length });
      res.end(BOMB);
    },
    stated: /\[binary, more than 65,536 bytes: 00 00 00 00 00 00 00 00 …\]/,
  },
  {
    name: 'charged: -1e20',
    handler: (_req, res, seen) =>
      json(
        res,
        seen.method === 'POST' ? 201 : 200,
        seen.method === 'POST'
          ? {
              id: 'gen_hostile1',
              status: 'succeeded',
              output: { url: '/files/gen_hostile1.png' },
              credits: { charged: -1e20, remaining: 5 },
            }
          : { id: 'run_hostile1', status: 'succeeded', outputs: [], credits: { charged: -1e20, remaining: 5 } },
      ),
    stated: /gives its charge as -100000000000000000000, not a credit amount/,
  },
];

const COMMANDS = [
  ['generate', 'x', '-a', 'sprite-artist'],
  ['runs', 'wait', 'run_hostile1'],
];

/** The checks every report of a hostile answer passes, whatever path it took. */
function expectBoundedReport(report: string, hostile: Pick<Hostile, 'stated'>): void {
  expect(report.length).toBeLessThan(REPORT_BOUND);
  expect(report).not.toMatch(CONTROL);
  expect(report).toMatch(hostile.stated);
  expect(report).not.toMatch(MONEY);
}

/** The quoted fields of a `--json` error (or an MCP tool error): each within the bound, printable. */
function expectBoundedFields(error: Record<string, unknown>, hostile: Pick<Hostile, 'stated'>, exitCode = 1): void {
  expect(error.exitCode).toBe(exitCode);
  const quoted = [error.message, typeof error.raw === 'string' ? error.raw : JSON.stringify(error.raw ?? '')] as string[];
  for (const field of quoted) {
    expect(field.length).toBeLessThan(FIELD_BOUND);
    expect(field).not.toMatch(CONTROL);
  }
  expect(quoted.join('\n')).toMatch(hostile.stated);
  // Nothing was spent that the command could vouch for.
  expect((error.credits as { charged?: number } | undefined)?.charged ?? 0).toBe(0);
  expect(JSON.stringify(error)).not.toMatch(MONEY);
}

describe('the terminal and --json', () => {
  const service = useScriptedService(runInProcess);

  for (const hostile of HOSTILE) {
    for (const args of COMMANDS) {
      it(`${hostile.name}: ${args.slice(0, 2).join(' ')} quotes a bounded excerpt with its size, exit 1`, async () => {
        const human = await service.against(hostile.handler, args);
        expect(human.code, human.stderr).toBe(1);
        expect(human.stdout).toBe('');
        expectBoundedReport(human.stderr, hostile);
        await service.server.close();

        const machine = await service.against(hostile.handler, [...args, '--json']);
        expect(machine.code, machine.stderr).toBe(1);
        expect(machine.stdout).toBe('');
        expect(machine.stderr.length).toBeLessThan(REPORT_BOUND);
        expectBoundedFields(jsonError(machine), hostile);
      });
    }
  }
});

describe('downloads', () => {
  const service = useScriptedService(runInProcess);

  it('an asset answered with a 5 MiB HTML error page: a bounded excerpt with its size, exit 1, the paid asset named', async () => {
    const page = `<html><title>Access denied</title>${'<p>denied</p>'.repeat(400_000)}</html>`;
    const handler: Handler = (_req, res, seen) => {
      if (seen.method === 'POST')
        return json(res, 201, { id: 'gen_dl1', status: 'succeeded', output: { url: '/files/gen_dl1.png' }, credits: { charged: 10 } });
      res.writeHead(404, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(page) });
      res.end(page);
    };
    const stated = /<title>Access denied<\/title>.*… \(5,200,0\d\d bytes; first 1,024 shown\)/;
    const human = await service.against(handler, ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/']);
    expect(human.code, human.stderr).toBe(1);
    expect(human.stderr.length).toBeLessThan(REPORT_BOUND);
    expect(human.stderr).not.toMatch(CONTROL);
    expect(human.stderr).toMatch(stated);
    // This one was paid for (10 credits): it says so, with where the asset still is.
    expect(human.stderr).toMatch(/The asset is paid for and still available at http:\/\/127\.0\.0\.1:\d+\/files\/gen_dl1\.png/);
    await service.server.close();
    const machine = await service.against(handler, ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/', '--json']);
    expect(machine.code).toBe(1);
    const error = jsonError(machine);
    expect(error).toMatchObject({ status: 404, exitCode: 1, credits: { charged: 10 } });
    expect(error.message.length).toBeLessThan(FIELD_BOUND);
    expect(error.message).toMatch(stated);
  });
});

describe('event streams (generate --stream)', () => {
  const service = useScriptedService(runInProcess);
  const session = { ASSETGEN_SESSION: 'sess_excerpts' };
  const stream =
    (...events: string[]): Handler =>
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(events.join(''));
    };
  const longMessage = `\u001b[2J\u001b]0;owned\u0007${'E'.repeat(900_000)}`;

  const cases: [name: string, handler: Handler, exitCode: number, stated: RegExp][] = [
    [
      'an error event with a 900 KB message full of escapes',
      stream(`event: error\ndata: ${JSON.stringify({ error: { message: longMessage } })}\n\n`),
      6,
      /The generation failed: E{1000,}… \(900,0\d\d bytes; first 1,024 shown\)/,
    ],
    [
      'a 5 MiB HTML page where the stream should be',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': 5 * MiB });
        res.end(Buffer.alloc(5 * MiB, 'h'));
      },
      1,
      /h{100}… \(5,242,880 bytes; first 1,024 shown\)/,
    ],
    [
      'a result event charging -1e20',
      stream(
        `event: result\ndata: ${JSON.stringify({ id: 'gen_s1', status: 'succeeded', output: { url: '/f.png' }, credits: { charged: -1e20 } })}\n\n`,
      ),
      1,
      /gives its charge as -100000000000000000000, not a credit amount/,
    ],
  ];
  for (const [name, handler, exitCode, stated] of cases) {
    it(`${name}: a bounded excerpt with its size, exit ${exitCode}`, async () => {
      const hostile = { stated };
      const args = ['generate', 'x', '-a', 'sprite-artist', '--stream'];
      const human = await service.against(handler, args, session);
      expect(human.code, human.stderr).toBe(exitCode);
      expectBoundedReport(human.stderr, hostile);
      await service.server.close();
      const machine = await service.against(handler, [...args, '--json'], session);
      expect(machine.code, machine.stderr).toBe(exitCode);
      expectBoundedFields(jsonError(machine), hostile, exitCode);
    });
  }
});

describe('MCP tool results', () => {
  let home: ReturnType<typeof tempHome>;
  let server: TestServer;
  let mcp: McpSession;
  let current: Handler = (_req, res) => json(res, 500, {});
  beforeAll(async () => {
    home = tempHome();
    server = await startServer((req, res, seen, index) => current(req, res, seen, index));
    mcp = await startMcp({ env: { ...home.env, ASSETGEN_BASE_URL: server.url, ASSETGEN_API_KEY: KEY }, cwd: home.cwd });
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
    home?.remove();
  });

  for (const hostile of HOSTILE) {
    it(`${hostile.name}: generate_image and wait_run answer a bounded tool error`, async () => {
      current = hostile.handler;
      for (const [tool, args] of [
        ['generate_image', { prompt: 'x', agent: 'sprite-artist' }],
        ['wait_run', { id: 'run_hostile1' }],
      ] as const) {
        const { result, json: document } = await mcp.call(tool, args);
        expect(result.isError, tool).toBe(true);
        const text = result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
        expect(text.length).toBeLessThan(REPORT_BOUND);
        expectBoundedFields(document.error as Record<string, unknown>, hostile);
      }
    });
  }
});

describe('a request refused before anything was paid', () => {
  const service = useScriptedService(runInProcess);
  it('runs wait with a 100,000-character id: refused before sending (exit 2), quoted in part, nothing said to be paid or kept', async () => {
    const id = `run_${'a'.repeat(100_000)}`;
    let requests = 0;
    const counting: Handler = (_req, res) => {
      requests++;
      json(res, 200, { id: 'run_x', status: 'succeeded' });
    };
    const human = await service.against(counting, ['runs', 'wait', id]);
    expect(human.code, human.stderr.slice(0, 500)).toBe(2);
    expect(human.stderr).toContain('The run id is not an id the service gives');
    expect(human.stderr).toContain('(100,004 characters)');
    expect(human.stderr.length).toBeLessThan(400);
    expect(human.stderr).not.toMatch(/paid|kept|resume with|wait for it again/);
    const machine = await service.against(counting, ['runs', 'wait', id, '--json']);
    expect(machine.stdout.length + machine.stderr.length).toBeLessThan(400);
    expect(jsonError(machine)).toMatchObject({ exitCode: 2 });
    expect(requests).toBe(0);
  });

  it('runs wait refused by the service (HTTP 431 for a well-formed id): no resume, nothing said to be paid or kept', async () => {
    const refusing: Handler = (_req, res) => json(res, 431, { error: { code: 'too_large', message: 'Request header fields too large' } });
    const human = await service.against(refusing, ['runs', 'wait', 'run_refused1']);
    expect(human.code, human.stderr.slice(0, 500)).toBe(1);
    expect(human.stderr).toMatch(/HTTP 431/);
    expect(human.stderr).not.toMatch(/paid|kept|resume with|wait for it again/);
    const machine = await service.against(refusing, ['runs', 'wait', 'run_refused1', '--json']);
    expect(jsonError(machine)).toMatchObject({ status: 431, exitCode: 1, job: { kind: 'run', resume: null } });
    expect(jsonError(machine).hint).toBeUndefined();
  });

  it('runs wait on an id no answer has shown (the connection drops): how to wait again, never "paid for"', async () => {
    const human = await service.against((_req, res) => res.socket?.destroy(), ['runs', 'wait', 'run_unseen1']);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(
      'No answer of the service has shown the run run_unseen1 yet; to wait for it again: assetgen runs wait run_unseen1',
    );
    expect(human.stderr).not.toMatch(/paid|kept|goes on without us/);
  });
});
