// A hostile service choosing file types and names: an SVG (active content) or HTML answer is never
// saved, whatever its content type says; the bytes decide the extension; a long node id is
// shortened keeping the extension. Small loopback servers, real files in a temp project.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderVideo } from '../../src/mock/media/gif.js';
import { renderPng } from '../../src/mock/media/png.js';
import { jsonError, runInProcess } from '../support/cli.js';
import { json, type Handler, useScriptedService } from '../support/http.js';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.cookie)"><script>alert(1)</script></svg>';

const service = useScriptedService(runInProcess);
const { against } = service;

/** Everything under the project, hidden temp files included. */
const tree = (): string[] => fs.readdirSync(service.home.cwd, { recursive: true, encoding: 'utf8' }).sort();

/** A generation whose file is `body`, sent with `type`, at `url`. */
function generation(body: string | Buffer, type: string, url = '/files/gen_h1.png'): Handler {
  return (_req, res, seen) => {
    if (seen.method === 'POST')
      return json(res, 201, { id: 'gen_h1', status: 'succeeded', output: { url, contentType: type }, credits: { charged: 10 } });
    res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}

describe('what the service says a file is', () => {
  const cases: [string, Handler][] = [
    ['an SVG sent as SVG', generation(SVG, 'image/svg+xml', '/files/x.svg')],
    ['an SVG sent as a PNG', generation(SVG, 'image/png')],
    ['HTML sent as a PNG', generation('<!doctype html><script>alert(1)</script>', 'image/png')],
  ];
  for (const [name, handler] of cases) {
    it(`${name}: not saved, exit 1, the paid URL in the hint`, async () => {
      const result = await against(handler, ['generate', 'x', '-a', 'sprite-artist', '--json']);
      expect(result.code, result.stderr).toBe(1);
      const error = jsonError(result);
      expect(error.message).toMatch(/not an image or video assetgen saves \(\.png, .*\); it was not saved/);
      expect(error.hint).toContain('paid for and still available at');
      expect(tree()).toEqual([]);
    });
  }

  it('the bytes decide the extension: a GIF sent as image/png is saved as .gif', async () => {
    const result = await against(generation(renderVideo('motion-director', 'x', 2), 'image/png'), ['generate', 'x', '-a', 'sprite-artist']);
    expect(result.code, result.stderr).toBe(0);
    expect(tree()).toEqual(['gen_h1.gif']);
  });
});

describe('names the service chooses', () => {
  /** A workflow run that finished at once, its one output named by `nodeId`. */
  const finishedRun =
    (nodeId: string): Handler =>
    (_req, res, seen) => {
      if (seen.url.startsWith('/files/')) {
        const png = renderPng('sprite-artist', 'node');
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
        return res.end(png);
      }
      return json(res, 201, {
        id: 'run_h1',
        status: 'succeeded',
        totalNodes: 1,
        completedNodes: 1,
        outputs: [{ nodeId, url: '/files/out', contentType: 'image/png' }],
        credits: { charged: 5 },
      });
    };

  it('a long node id is shortened, keeping its extension', async () => {
    const result = await against(finishedRun('n'.repeat(300)), ['workflows', 'run', 'wf_x', '-o', 'out/']);
    expect(result.code, result.stderr).toBe(0);
    const [name] = fs.readdirSync(path.join(service.home.cwd, 'out'));
    expect(name).toMatch(/^run_h1-n+\.png$/);
    expect(name!.length).toBe(120);
  });

  it('a node id with path syntax stays a name inside the folder', async () => {
    const result = await against(finishedRun('../../../escape'), ['workflows', 'run', 'wf_x', '-o', 'out/']);
    expect(result.code, result.stderr).toBe(0);
    expect(tree()).toEqual(['out', path.join('out', 'run_h1-.._.._.._escape.png')]);
  });
});
