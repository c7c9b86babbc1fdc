// HTTPS_PROXY/HTTP_PROXY and NO_PROXY are honoured: a real CONNECT proxy on loopback sees the
// CLI's traffic unless NO_PROXY exempts the host.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
let proxy: http.Server;
let proxyUrl: string;
const tunnels: string[] = [];

beforeAll(async () => {
  mock = await startMock({});
  proxy = http.createServer((_req, res) => res.writeHead(501).end());
  proxy.on('connect', (req, client, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await mock.close();
});

describe('proxy settings', () => {
  it('sends requests through HTTP_PROXY/HTTPS_PROXY, and not for hosts in NO_PROXY', async () => {
    const home = tempHome();
    try {
      const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl };
      const proxied = await runCli(['workflows', 'list', '--json'], { env, cwd: home.cwd });
      expect(proxied.code).toBe(0);
      const target = new URL(mock.url).host;
      expect(tunnels).toContain(target);

      tunnels.length = 0;
      const direct = await runCli(['workflows', 'list', '--json'], { env: { ...env, NO_PROXY: '127.0.0.1' }, cwd: home.cwd });
      expect(direct.code).toBe(0);
      expect(tunnels).toEqual([]);
    } finally {
      home.remove();
    }
  });
});
