// Tables on a terminal: columns aligned by display width and fitted to the terminal.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { alignColumns, truncateToWidth } from '../../src/cli/table.js';

describe('tables', () => {
  it('align by display width: wide characters take two columns, combining marks none', () => {
    const lines = alignColumns([
      ['ID', 'NAME', 'NOTE'],
      ['a', '剣の盾', 'x'],
      ['bb', 'Café', 'y'], // "e" + combining acute accent
      ['c', '🐉 dragon', 'z'],
    ]);
    const noteColumn = lines.map((line) => stringWidth(line.slice(0, line.lastIndexOf(' ') + 1)));
    expect(new Set(noteColumn).size).toBe(1);
  });

  it('fit the terminal by shortening the last column only, with an ellipsis', () => {
    const lines = alignColumns(
      [
        ['ID', 'DESCRIPTION'],
        ['sprite-artist', 'Pixel-art sprites and characters for 2D games, in any palette you like'],
      ],
      40,
    );
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(40);
    expect(lines[1]).toMatch(/^sprite-artist {2}Pixel-art .*…$/);
    expect(alignColumns([['a', 'short']], 40)[0]).toBe('a  short');
  });

  it('never split a wide character or a grapheme when cutting', () => {
    expect(truncateToWidth('剣の盾の剣', 6)).toBe('剣の…');
    expect(stringWidth(truncateToWidth('👍🏽👍🏽👍🏽', 5))).toBeLessThanOrEqual(5);
    expect(truncateToWidth('👍🏽👍🏽👍🏽', 5)).toBe('👍🏽👍🏽…');
    expect(truncateToWidth('fits', 10)).toBe('fits');
  });
});

describe('a styled header', () => {
  it('is styled after it is cut, so a cut never leaves a colour escape open', () => {
    const bold = (cell: string, row: number) => (row === 0 ? `\u001b[1m${cell}\u001b[22m` : cell);
    const [header] = alignColumns(
      [
        ['ID', 'DESCRIPTION'],
        ['a', 'x'],
      ],
      10,
      bold,
    );
    expect(header).toBe('\u001b[1mID\u001b[22m  \u001b[1mDESCR…\u001b[22m');
  });
});
