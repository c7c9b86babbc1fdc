// A video job that succeeds without its file is charged and not refunded (the service refunds
// failed jobs only): a build keeps the job in the lock, so the next build asks the same job again
// instead of paying for a new one.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli.js';
import { json, useScriptedService } from '../support/http.js';

const service = useScriptedService(runInProcess);

describe('a build whose video succeeds without a file', () => {
  it('fails the asset, keeps the paid job, and a second build pays nothing', async () => {
    fs.writeFileSync(path.join(service.home.cwd, 'assetgen.yaml'), 'assets:\n  - id: torch\n    video: torch flickering\n    out: fx/\n');
    let paid = 0;
    const handler = (req: unknown, res: Parameters<typeof json>[0], seen: { method: string; url: string }) => {
      if (seen.method === 'POST' && seen.url === '/api/v1/video') {
        paid++;
        return json(res, 202, { id: 'vid_empty1', status: 'queued', credits: { charged: 180, remaining: 820 } });
      }
      if (seen.url === '/api/v1/video/vid_empty1') return json(res, 200, { id: 'vid_empty1', status: 'succeeded' });
      return json(res, 404, { error: { code: 'not_found', message: 'no' } });
    };
    const first = await service.against(handler, ['build', '--yes', '--json']);
    expect(first.code).not.toBe(0);
    const report = JSON.parse(first.stdout) as { items: unknown[]; credits: { charged: number } };
    expect(report.items).toMatchObject([{ id: 'torch', outcome: 'failed', credits: 180, resume: 'assetgen build torch' }]);
    expect(report.credits.charged).toBe(180);
    const lock = JSON.parse(fs.readFileSync(path.join(service.home.cwd, 'assetgen.lock'), 'utf8')) as {
      assets: Record<string, { job?: { jobId?: string; credits?: number } }>;
    };
    expect(lock.assets.torch?.job).toMatchObject({ jobId: 'vid_empty1', credits: 180 });

    const second = await service.against(handler, ['build', '--yes', '--json']);
    expect(second.code).not.toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ items: [{ id: 'torch', outcome: 'failed' }], credits: { charged: 0 } });
    expect(paid).toBe(1);
  });
});
