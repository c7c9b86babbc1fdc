// The config store's own failure: a file assetgen keeps on this machine (the job journal, say) that
// cannot be read or written. Not a usage error: the command line was fine, the file is not (exit 1).
import { AssetgenError } from '../client/errors.js';

export class LocalFileError extends AssetgenError {
  /** The file at fault, as an absolute path. */
  readonly file: string;

  constructor(file: string, message: string, hint?: string, cause?: unknown) {
    super(message, { code: 'local_file', hint, cause });
    this.file = file;
  }
}

/** What a Node file-system error code means, in words a person can act on. */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EEXIST: 'it already exists',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
  EBUSY: 'the file is busy',
};

/**
 * A Node file-system error (it has `code`, `syscall` and `path`) as a LocalFileError naming the path
 * and what to do; anything else is returned unchanged. Every local file problem that no command
 * caught itself reads like this instead of "a bug in assetgen".
 */
export function localFileErrorOf(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { code, syscall, path: file } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof syscall !== 'string' || typeof file !== 'string' || !/^E[A-Z]+$/.test(code)) return error;
  const reason = REASONS[code] ?? error.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
  // A rename retried on Windows until its bound (src/files/rename.ts): another program holds the file.
  const { heldByAnotherProgram: held, dest } = error as { heldByAnotherProgram?: boolean; dest?: string };
  return new LocalFileError(
    held && dest ? dest : file,
    held
      ? `Cannot replace ${dest ?? file}: another program kept it open (${code}); it was not changed.`
      : `Cannot use ${file}: ${reason} (${code}).`,
    held
      ? 'Close the program that has it open (an editor or game engine importing it; an antivirus scan ends by itself), then run the command again.'
      : code === 'ENOTDIR'
        ? 'Give a path whose folders are folders, or move the file that is in the way.'
        : 'Check the path, its permissions and the free space, then run the command again.',
    error,
  );
}
