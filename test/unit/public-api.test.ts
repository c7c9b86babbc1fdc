// The SDK's published surface is the explicit list in src/index.ts: a new export is a decision
// (documented in README "Programmatic use"), never a side effect of `export *`.
import fs from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';

const VALUES = [
  'AbortedError',
  'ApiError',
  'AssetgenError',
  'AuthenticationError',
  'ChargedAnswerLostError',
  'ConnectionError',
  'ENDPOINTS',
  'GenerationFailedError',
  'InsufficientCreditsError',
  'InvalidArgumentError',
  'InvalidRequestError',
  'JobFailedError',
  'MissingCredentialsError',
  'NotFoundError',
  'OutputFileError',
  'RateLimitError',
  'ResponseTooLargeError',
  'ServerError',
  'TimeoutError',
  'UnexpectedResponseError',
  'VIDEO_JOB_COST',
  'createClient',
  'endpointPath',
];

describe("the SDK's public surface", () => {
  it('exports exactly the documented values', () => {
    expect(Object.keys(api).sort()).toEqual([...VALUES].sort());
  });

  it('keeps internal helpers out of the published module and its types', () => {
    // dist/index.d.ts as tsc emits it (the module is re-export lists only, so one file is enough).
    const source = fs.readFileSync(new URL('../../src/index.ts', import.meta.url), 'utf8');
    const { outputText: published, diagnostics } = ts.transpileDeclaration(source, {
      fileName: 'index.ts',
      compilerOptions: { module: ts.ModuleKind.NodeNext },
    });
    expect(diagnostics).toEqual([]);
    for (const internal of ['withHint', 'errorFromResponse', 'requestIdOf', 'export *']) expect(published).not.toContain(internal);
    for (const type of ['AssetgenClient', 'ClientOptions', 'Generation', 'VideoJob', 'StreamEvent', 'ApiErrorDetails'])
      expect(published).toContain(type);
  });

  it('every error the SDK throws is an AssetgenError', () => {
    for (const name of VALUES.filter((value) => value.endsWith('Error'))) {
      const ErrorClass = (api as Record<string, unknown>)[name] as new (...args: never[]) => Error;
      expect(ErrorClass.prototype instanceof api.AssetgenError || ErrorClass === api.AssetgenError, name).toBe(true);
    }
  });
});
