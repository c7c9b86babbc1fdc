// Stands in for the SDK's validation/ajv-provider.js inside dist/mcp/sdk.js (scripts/bundle-entry.mjs):
// the same class, but ajv (~60 ms to load) is required on the first validation, not at start-up.
// The SDK's server validates elicitation answers with it; nothing else in assetgen mcp does.
// ajv and ajv-formats are assetgen's own dependencies: the SDK is bundled, not installed, so its
// module cannot be required at run time. The options are the SDK's createDefaultAjvInstance's.
import { createRequire } from 'node:module';

export class AjvJsonSchemaValidator {
  #ajv;
  constructor(ajv) {
    this.#ajv = ajv;
  }
  getValidator(schema) {
    const ajv = (this.#ajv ??= defaultAjv());
    const validate = typeof schema.$id === 'string' ? (ajv.getSchema(schema.$id) ?? ajv.compile(schema)) : ajv.compile(schema);
    return (input) =>
      validate(input)
        ? { valid: true, data: input, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: ajv.errorsText(validate.errors) };
  }
}

function defaultAjv() {
  const require = createRequire(import.meta.url);
  const Ajv = require('ajv').default;
  const addFormats = require('ajv-formats').default;
  const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}
