// Temp file in the same directory, then rename: a reader never sees half a file.
import fs from 'node:fs';
import path from 'node:path';

export function writeFileAtomic(file: string, content: string, mode = 0o644): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}-${Date.now()}.tmp`);
  try {
    fs.writeFileSync(temp, content, { mode, flag: 'wx' });
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
