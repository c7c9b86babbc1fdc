// Where provenance sidecars go (the manifest's `provenance:`, records.ts SidecarPlace): the one
// rule for their paths and for naming the place to people. Pure, and light: the build's summary
// and `assetgen init` load it without the build's paid path.
import type { SidecarPlace } from './records.js';

/** A sidecar's name: `<file>.assetgen.json`, beside its output or under a folder of its own. */
export const SIDECAR_SUFFIX = '.assetgen.json';

/** The folder of `provenance: sidecar` (and of `sidecars: folder` without a `dir`), under assetgen's own. */
export const PROVENANCE_DIR = '.assetgen/provenance';

/** The sidecar of the output `file` (relative to the project root) where `place` says. */
export function sidecarPath(file: string, place: SidecarPlace): string {
  return place.sidecars === 'beside' ? `${file}${SIDECAR_SUFFIX}` : `${place.dir}/${file}${SIDECAR_SUFFIX}`;
}

/** The place a build clears of its own sidecars: beside the outputs for a folder, the default folder for beside. */
export const otherPlace = (place: SidecarPlace): SidecarPlace =>
  place.sidecars === 'beside' ? { sidecars: 'folder', dir: PROVENANCE_DIR } : { sidecars: 'beside' };

/** The place, for people: `in .assetgen/provenance/` (or `from …`) or `beside the outputs`. */
export const describePlace = (place: SidecarPlace, preposition: 'in' | 'from' = 'in'): string =>
  place.sidecars === 'beside' ? `${preposition === 'in' ? '' : 'from '}beside the outputs` : `${preposition} ${place.dir}/`;
