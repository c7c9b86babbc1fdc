// What a failure says, for input from the network: a refused download names what was wrong without
// an empty "Raw response", and waiting for an id the service does not know never claims a paid job.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderPng } from '../../src/mock/media/png.js';
import { jsonError, runInProcess } from '../support/cli.js';
import { json, type Handler, useScriptedService } from '../support/http.js';
import { startMock } from '../support/mock.js';

const PNG = renderPng('sprite-artist', 'refused');

const service = useScriptedService(runInProcess);
const { against } = service;

/** A generation whose download the CLI refuses (an encoding it cannot decode). */
const refusedDownload: Handler = (_req, res, seen) => {
  if (seen.method === 'POST')
    return json(res, 201, { id: 'gen_refused1', status: 'succeeded', output: { url: '/files/gen_refused1.png' } });
  res.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'compress', 'content-length': PNG.length });
  res.end(PNG);
};

describe('a refused download', () => {
  it('human: the reason and the URL, and no "Raw response: undefined"', async () => {
    const result = await against(refusedDownload, ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Content-Encoding "compress"/);
    expect(result.stderr).not.toContain('Raw response');
    expect(result.stderr).not.toContain('undefined');
  });

  it('--json: no `raw` field when there is no body to show', async () => {
    const result = await against(refusedDownload, ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/', '--json']);
    expect(result.code).toBe(1);
    const error = jsonError(result);
    expect(error.code).toBe('unexpected_response');
    expect('raw' in error).toBe(false);
    expect(fs.existsSync(path.join(service.home.cwd, 'out', 'gen_refused1.png'))).toBe(false);
  });
});

describe('waiting for an id the service does not know', () => {
  it('video wait / runs wait: not found, no resume command, never "paid for and kept"', async () => {
    const mock = await startMock({});
    try {
      const env = { ...service.home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
      for (const args of [
        ['video', 'wait', 'vid_unknown1'],
        ['runs', 'wait', 'run_unknown1'],
      ]) {
        const human = await runInProcess(args, { env, cwd: service.home.cwd });
        expect(human.code, human.stderr).toBe(1);
        expect(human.stderr).toMatch(/The service knows no (video job|run) \w+_unknown1/);
        expect(human.stderr).not.toMatch(/paid for|kept|resume with/);
        const json = await runInProcess([...args, '--json'], { env, cwd: service.home.cwd });
        expect(jsonError(json)).toMatchObject({ status: 404, job: { id: args[2], resume: null } });
      }
    } finally {
      await mock.close();
    }
  });
});
