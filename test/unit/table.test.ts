// Tables on a terminal: columns aligned by display width and fitted to the terminal, the id whole.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { layoutTable, truncateToWidth } from '../../src/cli/text-width.js';

describe('tables', () => {
  it('align by display width: wide characters take two columns, combining marks none', () => {
    const { lines } = layoutTable([
      ['ID', 'NAME', 'NOTE'],
      ['a', '剣の盾', 'x'],
      ['bb', 'Café', 'y'], // "e" + combining acute accent
      ['c', '🐉 dragon', 'z'],
    ]);
    const noteColumn = lines.map((line) => stringWidth(line.slice(0, line.lastIndexOf(' ') + 1)));
    expect(new Set(noteColumn).size).toBe(1);
  });

  it('fit the terminal by shortening the last column only, with an ellipsis', () => {
    const { lines } = layoutTable(
      [
        ['ID', 'DESCRIPTION'],
        ['sprite-artist', 'Pixel-art sprites and characters for 2D games, in any palette you like'],
      ],
      40,
    );
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(40);
    expect(lines[1]).toMatch(/^sprite-artist {2}Pixel-art .*…$/);
    expect(layoutTable([['a', 'short']], 40).lines[0]).toBe('a  short');
  });

  it('never split a wide character or a grapheme when cutting', () => {
    expect(truncateToWidth('剣の盾の剣', 6)).toBe('剣の…');
    expect(stringWidth(truncateToWidth('👍🏽👍🏽👍🏽', 5))).toBeLessThanOrEqual(5);
    expect(truncateToWidth('👍🏽👍🏽👍🏽', 5)).toBe('👍🏽👍🏽…');
    expect(truncateToWidth('fits', 10)).toBe('fits');
  });
});

describe('the id column', () => {
  const plan = [
    ['ID', 'STATUS', 'ACTION', 'KIND', 'CREDITS', 'OUT', 'WHY'],
    ['item-sword', 'new', 'generate', 'image', '?', 'assets/items/item-sword.png', 'not built yet'],
    ['item-shield', 'new', 'generate', 'image', '?', 'assets/items/item-shield.png', 'not built yet'],
    ['item-staff', 'up-to-date', 'none', 'image', '', 'assets/items/item-staff.png', ''],
  ];

  it('is never cut: other columns are cut to their floor first, then left out, in the order given', () => {
    const order = { leaveOutFirst: ['WHY', 'OUT', 'KIND', 'STATUS'] };
    for (const width of [60, 50, 40, 32, 24]) {
      const { lines } = layoutTable(plan, width, undefined, order);
      for (const line of lines) expect(stringWidth(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(lines.map((line) => line.split(' ')[0])).toEqual(['ID', 'item-sword', 'item-shield', 'item-staff']);
    }
    // 60 columns: WHY goes, OUT is cut to its floor.
    expect(layoutTable(plan, 60, undefined, order)).toEqual({
      lines: [
        'ID           STATUS      ACTION    KIND   CREDITS  OUT',
        'item-sword   new         generate  image  ?        assets/i…',
        'item-shield  new         generate  image  ?        assets/i…',
        'item-staff   up-to-date  none      image           assets/i…',
      ],
      leftOut: ['WHY'],
    });
    // Narrower: KIND and STATUS go before anything else to their right, as asked.
    expect(layoutTable(plan, 32, undefined, order)).toMatchObject({
      lines: ['ID           ACTION    CREDITS', 'item-sword   generate  ?', 'item-shield  generate  ?', 'item-staff   none'],
      leftOut: ['STATUS', 'KIND', 'OUT', 'WHY'],
    });
    // Without an order, from the right.
    expect(layoutTable(plan, 32).leftOut).toEqual(['KIND', 'CREDITS', 'OUT', 'WHY']);
  });

  it('stands alone, one id a line and whole, when nothing else fits beside it', () => {
    const ids = [
      ['ID', 'NAME'],
      ['inventory-potion-large-red-with-a-cork-stopper', 'Potion'],
    ];
    const { lines, leftOut } = layoutTable(ids, 20);
    expect(lines).toEqual(['ID', 'inventory-potion-large-red-with-a-cork-stopper']);
    expect(leftOut).toEqual(['NAME']);
  });

  it('can be any column: the jobs table has its id second', () => {
    const jobs = [
      ['KIND', 'ID', 'STATE', 'UPDATED', 'LABEL'],
      ['video', 'vid_0123456789abcdef0123', 'processing', '2026-01-01 12:00', 'torch flickering on a dungeon wall'],
    ];
    const { lines } = layoutTable(jobs, 40);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(40);
    expect(lines[1]).toContain('vid_0123456789abcdef0123');
  });

  it('a table without one cuts every column as before, and leaves none out', () => {
    const { lines, leftOut } = layoutTable(
      [
        ['STATE', 'PATH'],
        ['installed', '/home/someone/.claude/skills/assetgen/SKILL.md'],
      ],
      20,
    );
    expect(leftOut).toEqual([]);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(20);
  });
});

describe('a styled header', () => {
  it('is styled after it is cut, so a cut never leaves a colour escape open', () => {
    const bold = (cell: string, row: number) => (row === 0 ? `\u001b[1m${cell}\u001b[22m` : cell);
    const {
      lines: [header],
    } = layoutTable(
      [
        ['NAME', 'DESCRIPTION'],
        ['a', 'x'],
      ],
      12,
      bold,
    );
    expect(header).toBe('\u001b[1mNAME\u001b[22m  \u001b[1mDESCR…\u001b[22m');
  });
});
