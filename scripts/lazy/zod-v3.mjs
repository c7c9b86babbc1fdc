// Stands in for `zod/v3` inside dist/mcp/sdk.js where the SDK's zod-compat imports it
// (scripts/bundle-entry.mjs): the SDK calls `object` for zod 3 shapes only, and assetgen's tools are
// zod 4; zod 3 loads on first use only.
import { createRequire } from 'node:module';

export const object = (...args) => createRequire(import.meta.url)('zod/v3').object(...args);
