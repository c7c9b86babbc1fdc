// How many pictures of each (kind, agent, prompt) the mock has made, so the next paid call draws
// another one (media/pixel-art.ts `picture`). Bounded, since prompts are endless and the mock is a
// load-test target (a fresh prompt per request): the counts of the newest distinct prompts are
// kept — at least `limit`, at most twice that — and a prompt forgotten starts again at its first
// picture. Keyed by the prompt string itself, which the file record holds anyway: no copy is made.

/** Distinct prompts whose counts are surely kept (about 100 bytes each). */
export const VARIATION_COUNTS_KEPT = 10_000;

export class VariationCounter {
  /** Two generations: when `#current` is full it becomes `#previous` (dropped whole, not one by one). */
  #current = new Map<string, Map<string, number>>();
  #previous = new Map<string, Map<string, number>>();
  #size = 0;

  constructor(private readonly limit = VARIATION_COUNTS_KEPT) {}

  /** The number of pictures of (`picture`, `prompt`) made before this one, counting this one as made. */
  next(picture: string, prompt: string): number {
    const made = this.#current.get(picture)?.get(prompt) ?? this.#previous.get(picture)?.get(prompt) ?? 0;
    let prompts = this.#current.get(picture);
    if (!prompts) this.#current.set(picture, (prompts = new Map<string, number>()));
    if (!prompts.has(prompt)) this.#size += 1;
    prompts.set(prompt, made + 1);
    if (this.#size >= this.limit) {
      this.#previous = this.#current;
      this.#current = new Map();
      this.#size = 0;
    }
    return made;
  }

  clear(): void {
    this.#current.clear();
    this.#previous.clear();
    this.#size = 0;
  }
}
