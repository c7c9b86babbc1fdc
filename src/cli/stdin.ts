import { UsageError } from './errors.js';

/** Reads all of stdin as text (bounded: secrets and cookies are short). */
export async function readStdin(stdin: NodeJS.ReadableStream, limitBytes = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > limitBytes) throw new UsageError(`stdin is larger than ${limitBytes} bytes; expected a single secret.`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
