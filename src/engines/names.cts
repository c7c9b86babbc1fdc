// The engines `assetgen init --engine` sets up, in one list. CommonJS, so the command table
// (program.cts, CommonJS for a fast start) can declare them as choices; src/engines/setup.ts reads
// the same list.
export const ENGINES = ['godot', 'unity', 'defold', 'phaser', 'pixi'] as const;
export type Engine = (typeof ENGINES)[number];
