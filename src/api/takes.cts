// The most takes one asset or command makes (manifest `variants`, `generate --variants`, `build
// --more`): each is a paid call, and a contact sheet shows them all. CommonJS, so the command table
// (src/cli/values.cts) reads the same figure as the manifest's reader.
export const MAX_TAKES = 16;
