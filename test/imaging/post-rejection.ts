// The error parsePostSteps throws for a `post:` list it refuses (a test fails if it accepts it).
import { expect } from 'vitest';
import { PostSpecError } from '../../src/imaging/errors.js';
import { parsePostSteps } from '../../src/imaging/post-steps.js';

export function rejection(post: unknown): PostSpecError {
  try {
    parsePostSteps(post);
  } catch (error) {
    expect(error).toBeInstanceOf(PostSpecError);
    return error as PostSpecError;
  }
  throw new Error(`accepted ${JSON.stringify(post)}`);
}
