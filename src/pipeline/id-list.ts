// Ids in a sentence, bounded: a plan, a warning or an error about 5,000 assets is one short line
// (the first ten, then how many more), never 60 KB. Used by the pipeline's reasons and the commands' text.

/** The first `max` ids joined by commas, then "and N more". */
export function listIds(ids: readonly string[], code: (id: string) => string = (id) => id, max = 10): string {
  const shown = ids.slice(0, max).map(code).join(', ');
  return ids.length > max ? `${shown} and ${(ids.length - max).toLocaleString('en')} more` : shown;
}
