// Defold's project defaults for pixel art, in `game.project`: the default samplers' min and mag
// filters Nearest (both default to linear). Only those two keys change; every other byte stays.
import { setIniValues, type IniStyle } from './ini.js';
import type { Splice } from './text-edit.js';

export const DEFOLD_FILE = 'game.project';

const DEFOLD_STYLE: IniStyle = { assign: ' = ', blankAfterHeader: false, multiline: false };

/** `[graphics]`: what the default samplers use (a custom material's own samplers say their own). */
export const DEFOLD_GRAPHICS: [string, string][] = [
  ['default_texture_min_filter', 'nearest'],
  ['default_texture_mag_filter', 'nearest'],
];

export const defoldSplices = (text: string): Splice[] => setIniValues(text, 'graphics', DEFOLD_GRAPHICS, DEFOLD_STYLE);
