// The project-path rules' quick answers agree with the path module's on every string: they are
// asked of every asset and recorded file, and must not change what they say.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasControlCharacters } from '../../src/files/confine.js';
import { inTarget, isProjectPath, outputStem } from '../../src/pipeline/paths.js';

/** Every string of up to `length` characters from `alphabet`, in a bounded list. */
function strings(alphabet: string[], length: number): string[] {
  let level = [''];
  const all = [''];
  for (let size = 1; size <= length; size++) {
    level = level.flatMap((prefix) => alphabet.map((char) => prefix + char));
    all.push(...level);
  }
  return all;
}

const PATHS = strings(['a', 'b', '.', '/', '-', '\\', 'é', ':'], 5); // 37,449 strings

describe('project paths', () => {
  it('isProjectPath: relative, normal, forward slashes, inside the project, for every short string', () => {
    const reference = (file: string): boolean =>
      !!file &&
      !hasControlCharacters(file) &&
      !file.includes('\\') &&
      !/^([A-Za-z]:)?\//.test(file) &&
      path.posix.normalize(file) === file &&
      file !== '..' &&
      !file.startsWith('../');
    const files = [...PATHS, 'assets/icons/sword.png', 'a\u0000b', 'C:/x', '_/-'];
    expect(files.filter((file) => isProjectPath(file) !== reference(file))).toEqual([]);
  });

  it("inTarget and outputStem of a folder: as path.posix's dirname, basename and join say", () => {
    const folders = ['.', '..', 'a', 'a/b', 'a/', 'a//b', './a', '/', '', 'a/./b'];
    const ids = ['a', 'ab', 'a.b', '.', '..', '', 'a/b'];
    const files = PATHS.filter((_, index) => index % 5 === 0);
    const wrong: string[] = [];
    for (const dir of folders) {
      const target = { type: 'folder', dir } as const;
      for (const id of ids) {
        if (outputStem(target, id) !== path.posix.join(dir, id).toLowerCase()) wrong.push(`stem ${dir} ${id}`);
        for (const file of files)
          if (inTarget(file, id, target) !== (path.posix.dirname(file) === dir && path.posix.basename(file).startsWith(id)))
            wrong.push(`${file} in ${dir} as ${id}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
