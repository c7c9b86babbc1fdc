// sharp, loaded on first use: its native module costs start-up time that every command other than a
// build with post steps or a sheet should not pay.
import type SharpConstructor from 'sharp';
import { ImagingError } from './errors.js';

export type Sharp = typeof SharpConstructor;

let loading: Promise<Sharp> | undefined;

export function loadSharp(): Promise<Sharp> {
  loading ??= import('sharp').then(
    (module) => {
      const sharp = module.default;
      // No operation is run twice on the same image: a cache would only hold decoded pixels longer.
      sharp.cache(false);
      return sharp;
    },
    (error: unknown) => {
      loading = undefined;
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new ImagingError(
        'library_missing',
        `the image library sharp could not be loaded (${reason}); reinstall assetgen so npm fetches its prebuilt binary for this platform`,
      );
    },
  );
  return loading;
}
