// Stands in for the SDK's validation/ajv-provider.js inside dist/mcp/sdk.js (scripts/bundle-entry.mjs):
// the same class, but ajv (~60 ms to load) is required on the first validation, not at start-up.
// The SDK's server validates elicitation answers with it; nothing else in assetgen mcp does.
import { createRequire } from 'node:module';

export class AjvJsonSchemaValidator {
  #ajv;
  #inner;
  constructor(ajv) {
    this.#ajv = ajv;
  }
  getValidator(schema) {
    this.#inner ??= new (createRequire(import.meta.url)('@modelcontextprotocol/sdk/validation/ajv').AjvJsonSchemaValidator)(this.#ajv);
    return this.#inner.getValidator(schema);
  }
}
