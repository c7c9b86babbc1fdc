// The words a plan gives a file a build leaves alone, in one place for the planner and both front
// ends (src/cli/front-end.ts); a module of its own so the CLI's start-up does not load the planner.
/** What a build would do to a file it leaves alone: replace one assetgen did not make, regenerate an edited output, re-pack an edited sheet. */
export type LeftAloneChange = 'replace' | 'regenerate' | 'repack';

/** The command line's words for each (PlanOptions.leftAlone's default), as sheet.ts and post.ts write them too. */
export const FORCE_WOULD: Record<LeftAloneChange, string> = {
  replace: 'left alone (--force replaces it)',
  regenerate: 'left alone (--force regenerates)',
  repack: 'left alone (--force re-packs)',
};
