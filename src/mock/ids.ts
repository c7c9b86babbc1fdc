// Random ids for records and requests, cut from one pool of random bytes refilled 4 KiB at a time:
// a crypto call per id cost about 5 % of a request under load.
import { randomBytes } from 'node:crypto';

let pool = Buffer.alloc(0);
let offset = 0;

export function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  offset += bytes;
  return pool.toString('hex', offset - bytes, offset);
}

export const newRequestId = (): string => `req_${randomHex(8)}`;
