// The words a plan gives a file a build leaves alone, and those the manifest's checks give its
// `budget`, in one place for the planner, the validator and both front ends (src/cli/front-end.ts);
// a module of its own so the CLI's start-up does not load the planner.
/** What a build would do to a file it leaves alone: replace one assetgen did not make, regenerate an edited output, re-pack an edited sheet. */
export type LeftAloneChange = 'replace' | 'regenerate' | 'repack';

/**
 * A front end's words for a file a build leaves alone (FrontEnd.leftAlone): that it is left alone,
 * and how to have asset `id`'s file made anyway. The planner hands them to sheet.ts and post.ts.
 */
export type LeftAloneWords = (id: string, change: LeftAloneChange) => string;

/** The command line's words for each. */
const FORCE_WOULD: Record<LeftAloneChange, string> = {
  replace: 'left alone (--force replaces it)',
  regenerate: 'left alone (--force regenerates)',
  repack: 'left alone (--force re-packs)',
};

/** The command line's words (its FrontEnd.leftAlone, and PlanOptions.leftAlone's default). */
export const commandLineLeftAlone: LeftAloneWords = (_id, change) => FORCE_WOULD[change];

/**
 * What the manifest's `budget` is, in the command line's words (its FrontEnd.budgetIs, and the
 * validator's default: ValidateOptions.budgetIs), said when a budget is not a whole number of credits.
 */
export const COMMAND_LINE_BUDGET_IS = 'the default --max-credits';
