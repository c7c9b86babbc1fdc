// Report text escaped for its format (src/pipeline/markup.ts): a hostile text in a Markdown table
// cell, read back by a real Markdown parser, is one cell of plain text showing what was written —
// no HTML, image, link or code it did not ask for, the table's columns intact; and in HTML, text.
import { describe, expect, it } from 'vitest';
import { escapeHtml, markdownCell } from '../../src/pipeline/markup.js';
import { nodesOf, parseMarkdown, plainText, type MdNode } from '../support/markdown.js';

const HOSTILE = [
  `<img src=x onerror="alert('img')">`,
  '<script>alert(1)</script><textarea><!--',
  '![pixel](http://127.0.0.1:9/pixel.png) [click](javascript:alert(1)) <http://127.0.0.1:9/>',
  'a | b | c \\| d \\',
  'line one\n| x | y |\r\n|---|---|\u2028line two\u0085\u001b[31m',
  '`` ` `` backticks ``` and `<b>bold</b>`',
  '&lt;b&gt; &amp; &#60;script&#62; *em* _em_ **strong** ~~del~~ $x$ \\*',
  '`leading and trailing`',
  ' spaced ',
  '',
];

/** The cells of the one body row of a two-column table whose first cell is `cell`. */
async function cells(cell: string): Promise<MdNode[]> {
  const tree = await parseMarkdown(`| a | b |\n|---|---|\n| ${cell} | end |\n`);
  const table = tree.children?.find((node) => node.type === 'table');
  const rows = table?.children ?? [];
  expect(rows).toHaveLength(2);
  return rows[1]!.children!;
}

/** What a cell shows: the text, line breaks and control characters as spaces. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a cell turns into spaces
const shown = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');

describe('markdownCell', () => {
  it('escapes markup as entities and backslashes, and keeps one line', () => {
    expect(markdownCell('<img src=x onerror=alert(1)> ![a](u) a|b `c` \\ & *d*\ne')).toBe(
      '&lt;img src=x onerror=alert(1)&gt; \\!\\[a\\](u) a\\|b \\`c\\` \\\\ &amp; \\*d\\* e',
    );
    expect(markdownCell('assets/sword.png', 'code')).toBe('`assets/sword.png`');
    expect(markdownCell('a`b``c|d', 'code')).toBe('```a`b``c\\|d```');
    expect(markdownCell('`x`', 'code')).toBe('`` `x` ``');
    expect(markdownCell('', 'code')).toBe('');
    expect(markdownCell('a\\|b', 'code')).toBe('a\\\\\\|b');
  });

  for (const [index, text] of HOSTILE.entries()) {
    it(`hostile text ${index}: one cell of plain text, as written, in a parsed table`, async () => {
      const [cell, end] = await cells(markdownCell(text));
      expect(plainText(cell!)).toBe(shown(text).trim());
      expect(plainText(end!)).toBe('end');
      // Text only: no HTML, image, code or emphasis; a link only where GFM links a URL written out (it fetches nothing).
      for (const node of nodesOf(cell!).slice(1)) {
        if (node.type === 'link') expect(node.url).toBe(plainText(node));
        else expect(node.type).toBe('text');
      }
      if (!text) return;
      // As a code span: one inlineCode node holding the text (text with a backslash stays text).
      const [code] = await cells(markdownCell(text, 'code'));
      if (text.includes('\\')) return expect(plainText(code!)).toBe(shown(text).trim());
      expect(nodesOf(code!).map((node) => node.type)).toEqual(['tableCell', 'inlineCode']);
      expect(plainText(code!)).toBe(shown(text));
    });
  }
});

describe('escapeHtml', () => {
  it('escapes markup and quotes, drops control characters', () => {
    expect(escapeHtml(`<img src="x" onerror='alert(1)'> & \u001b[31m`)).toBe(
      '&lt;img src=&quot;x&quot; onerror=&#39;alert(1)&#39;&gt; &amp; [31m',
    );
  });
});
