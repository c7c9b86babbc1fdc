// The values of --preview and ASSETGEN_PREVIEW, in one list. CommonJS, so the command table
// (program.cts, CommonJS for a fast start) can declare them as choices; the preview code reads the
// same list, so the flag, the environment variable and the docs cannot drift apart.
export const PREVIEW_MODES = ['auto', 'kitty', 'iterm', 'sixel', 'off'] as const;
export type PreviewMode = (typeof PREVIEW_MODES)[number];
/** An inline image protocol: what `auto` detects, or what the user names. */
export type PreviewProtocol = Exclude<PreviewMode, 'auto' | 'off'>;
