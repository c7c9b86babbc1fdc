// The real self-hosted Turborepo remote-cache server (the `turborepo-remote-cache` package, a
// fastify app) started in this process with local storage in a temp folder, on an ephemeral
// loopback port: what `assetgen build --remote-cache` talks to in the tests. With a signature key
// it runs in its signature mode (it stores each artifact's x-artifact-tag and answers 404 for an
// artifact stored without one).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

export interface RemoteCacheServer {
  url: string;
  token: string;
  /** Where the artifacts are: `<storage>/<team>/<hash>` (a test replaces bytes there). */
  storage: string;
  close(): Promise<void>;
}

interface FastifyLike {
  listen(options: { port: number; host: string }): Promise<string>;
  close(): Promise<void>;
  server: { address(): AddressInfo | string | null };
}

export async function startRemoteCache(
  options: { token?: string; signatureKey?: string; storage?: string } = {},
): Promise<RemoteCacheServer> {
  // The package ships no type declarations: its one export, as used here.
  const name = 'turborepo-remote-cache';
  const { createApp } = (await import(name)) as {
    createApp(options: Record<string, unknown>): FastifyLike;
  };
  const token = options.token ?? 'cache-token-for-tests';
  const storage = options.storage ?? fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-remote-cache-'));
  const app = createApp({
    logger: false,
    bodyLimit: 100 * 2 ** 20,
    configOverrides: {
      STORAGE_PROVIDER: 'local',
      STORAGE_PATH: storage,
      STORAGE_PATH_USE_TMP_FOLDER: false,
      TURBO_TOKEN: token,
      ENABLE_STATUS_LOG: false,
      ...(options.signatureKey ? { TURBO_REMOTE_CACHE_SIGNATURE_KEY: options.signatureKey } : {}),
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    storage,
    close: async () => {
      await app.close();
      if (!options.storage) fs.rmSync(storage, { recursive: true, force: true });
    },
  };
}
