// Markdown rendered as a site that allows HTML in it would: parsed by a real CommonMark + GFM parser
// (micromark through mdast-util-from-markdown, the parser under remark, with its GFM extensions),
// then each node written as the HTML every renderer writes for it — raw HTML passed through as
// written, text escaped. So what a report's Markdown becomes in a browser is tested, not what we hope.
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/** A node of the syntax tree (mdast), as far as this renderer reads it. */
export interface MdNode {
  type: string;
  value?: string;
  url?: string;
  alt?: string | null;
  title?: string | null;
  depth?: number;
  ordered?: boolean | null;
  children?: MdNode[];
}

/** The Markdown's syntax tree (CommonMark with GFM's tables, strikethrough, autolinks and task lists). */
export async function parseMarkdown(text: string): Promise<MdNode> {
  return Promise.resolve(fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as MdNode);
}

/** The Markdown as HTML, raw HTML in it kept (the unsafe setting a report must survive). */
export async function markdownToHtml(text: string): Promise<string> {
  return render(await parseMarkdown(text));
}

/** Every node of the tree, depth first. */
export function nodesOf(node: MdNode): MdNode[] {
  return [node, ...(node.children ?? []).flatMap(nodesOf)];
}

/** The text a node shows (as the DOM's textContent would read it). */
export function plainText(node: MdNode): string {
  if (node.type === 'text' || node.type === 'inlineCode' || node.type === 'html') return node.value ?? '';
  return (node.children ?? []).map(plainText).join('');
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function render(node: MdNode, cell = 'td'): string {
  const inner = (tag = cell): string => (node.children ?? []).map((child) => render(child, tag)).join('');
  switch (node.type) {
    case 'root':
      return inner();
    case 'paragraph':
      return `<p>${inner()}</p>\n`;
    case 'heading':
      return `<h${node.depth}>${inner()}</h${node.depth}>\n`;
    case 'text':
      return escapeHtml(node.value ?? '');
    case 'html':
      return node.value ?? '';
    case 'inlineCode':
      return `<code>${escapeHtml(node.value ?? '')}</code>`;
    case 'inlineMath':
      return `<span class="math">${escapeHtml(node.value ?? '')}</span>`;
    case 'emphasis':
      return `<em>${inner()}</em>`;
    case 'strong':
      return `<strong>${inner()}</strong>`;
    case 'delete':
      return `<del>${inner()}</del>`;
    case 'break':
      return '<br>';
    case 'link':
      return `<a href="${escapeHtml(node.url ?? '')}">${inner()}</a>`;
    case 'image':
      return `<img src="${escapeHtml(node.url ?? '')}" alt="${escapeHtml(node.alt ?? '')}">`;
    case 'table': {
      const [head, ...rows] = node.children ?? [];
      return `<table>\n<thead>${head ? render(head, 'th') : ''}</thead>\n<tbody>\n${rows.map((row) => render(row)).join('\n')}\n</tbody>\n</table>\n`;
    }
    case 'tableRow':
      return `<tr>${inner()}</tr>`;
    case 'tableCell':
      return `<${cell}>${inner()}</${cell}>`;
    case 'list':
      return node.ordered ? `<ol>${inner()}</ol>\n` : `<ul>${inner()}</ul>\n`;
    case 'listItem':
      return `<li>${inner()}</li>`;
    case 'blockquote':
      return `<blockquote>${inner()}</blockquote>\n`;
    case 'code':
      return `<pre><code>${escapeHtml(node.value ?? '')}</code></pre>\n`;
    case 'thematicBreak':
      return '<hr>\n';
    default:
      throw new Error(`markdownToHtml: no rendering for a ${node.type} node`);
  }
}
