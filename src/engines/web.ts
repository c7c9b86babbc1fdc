// Phaser and PixiJS keep their defaults in code, not in a project file: `assetgen init` prints the
// line to add (nearest-neighbour sampling for pixel art) and writes nothing for them.

/** Phaser 3: `pixelArt: true` in the game config (nearest filtering, rounded pixels, no antialias). */
export const PHASER_SNIPPET = `new Phaser.Game({
  // …your config…
  pixelArt: true, // nearest-neighbour sampling: pixel art stays crisp when scaled
});`;

/** PixiJS 8: the default of every texture source made from then on; set it before loading textures. */
export const PIXI_SNIPPET = `import { TextureStyle } from 'pixi.js';

// Before any texture is loaded: nearest-neighbour sampling, so pixel art stays crisp when scaled.
TextureStyle.defaultOptions.scaleMode = 'nearest';`;
