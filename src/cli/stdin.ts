import { addAbortSignal, Readable } from 'node:stream';
import { UsageError } from './errors.js';

/**
 * Reads all of stdin as text (bounded: secrets and cookies are short). The command's signal ends
 * the read (Ctrl-C, SIGTERM): a pipe whose writer never closes it must not hold the run forever.
 */
export async function readStdin(stdin: NodeJS.ReadableStream, limitBytes = 64 * 1024, signal?: AbortSignal): Promise<string> {
  if (signal && stdin instanceof Readable) addAbortSignal(signal, stdin);
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
