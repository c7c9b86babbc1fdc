// Stands in for zod-to-json-schema inside dist/mcp/sdk.js (scripts/bundle-entry.mjs): the SDK
// converts zod 3 schemas with it, assetgen's tools are zod 4 (converted by zod itself); loaded on
// first use only, resolved from the SDK's folder as the SDK's own import would be.
// The SDK is bundled, not installed, in the published package: a zod 3 schema would fail here (none is).
import { createRequire } from 'node:module';

export function zodToJsonSchema(...args) {
  const sdkFile = createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/validation/ajv');
  return createRequire(sdkFile)('zod-to-json-schema').zodToJsonSchema(...args);
}
