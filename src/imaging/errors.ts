// The imaging modules' errors: typed, with a code a caller maps to an exit code, and a message that
// names the bad input. They know nothing of the CLI (a command maps them).

/** What went wrong with an image, or with packing images. */
export type ImagingErrorCode =
  /** The bytes are no image sharp can read. */
  | 'not_an_image'
  /** An image, but of a format post steps do not take (SVG, TIFF, PDF, …). */
  | 'unsupported_format'
  /** Wider, taller or with more pixels than IMAGE_LIMITS (input, or what a step would make). */
  | 'too_large'
  /** An image of an allowed format whose pixels cannot be decoded (truncated, corrupt). */
  | 'damaged'
  /** The image library could not be loaded. */
  | 'library_missing'
  /** An atlas's frames do not fit in maxSize × maxSize. */
  | 'atlas_too_small'
  /** Bad atlas input: no frames, a duplicate or empty name, a bad option. */
  | 'bad_atlas_input'
  /** `slice` found no frames where it was told to look (nothing but background, a grid finer than the image, another count). */
  | 'slice_failed';

export class ImagingError extends Error {
  override name = 'ImagingError';
  constructor(
    readonly code: ImagingErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A `post:` list that is not valid. `path` leads from the list to the bad value ([2, 'resize',
 * 'width']), so a manifest validator can point at its line and column.
 */
export class PostSpecError extends Error {
  override name = 'PostSpecError';
  constructor(
    readonly path: readonly (string | number)[],
    message: string,
  ) {
    super(message);
  }
}
