// Provenance: what the lock knows of each generated file (prompt, agent or workflow, service, job,
// date, credits, hashes, post steps), as one record per file — written as `<file>.assetgen.json`
// where the manifest's `provenance:` says (./sidecars.ts) and listed by
// `assetgen report --disclosure` for store and legal disclosures. Pure: prints nothing, reads nothing.
import { idempotencyKeyFor, specHash, stableStringify } from './hash.js';
import { describePostSteps, type PostStep } from '../imaging/post-steps.js';
import type { AssetKind, LockEntry, ManifestAsset, TrimPlacement } from './records.js';
import { postHash } from './post.js';
import { markdownCell } from './markup.js';

/** IPTC's term for media made by a trained model from a prompt (the NewsCodes digital source type). */
export const DIGITAL_SOURCE_TYPE = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

export interface ProvenanceRecord {
  /** The file, relative to the project root (forward slashes), and its bytes as assetgen wrote them. */
  file: string;
  sha256: string;
  size: number;
  /** The asset of the manifest that made it. */
  asset: string;
  kind: AssetKind;
  /** The prompt (and a workflow's node prompts) the file was made from; absent when the manifest no longer says it. */
  prompt?: string;
  set?: Record<string, string>;
  agent?: string;
  workflow?: string;
  /** The service host it was generated on (`mock` for the bundled mock); null when the lock does not say. */
  service: string | null;
  /** The video job or workflow run id (images have none). */
  jobId?: string;
  /** An image: the service's id of the generation that made it, when the service gave one. */
  generationId?: string;
  /** The Idempotency-Key of the paid call: the service's ledger names the charge with it. */
  idempotencyKey?: string;
  generatedAt: string | null;
  /** The asset's whole cost in credits (all its files together); null when part of it is unknown. */
  credits: number | null;
  digitalSourceType: typeof DIGITAL_SOURCE_TYPE;
  /** The post steps applied after download (the manifest's, when the lock's hash of them matches). */
  post?: readonly PostStep[];
  /**
   * A trimmed image: where its picture was in the image trim saw (place it at x, y to put it back);
   * a frame of a `slice` then `trim`, where it sat in its cell (its entry of the lock's `trims`).
   */
  trim?: TrimPlacement;
  generator: 'assetgen';
}

/**
 * The records of one finished lock entry, one per file. `asset` is the manifest's entry (if any);
 * its prompt is included only when it is the one the files were made from (its spec is the lock's).
 * `service` is the build's service, used when the lock (written by an older assetgen) does not say.
 */
export function provenanceRecords(id: string, entry: LockEntry, asset?: ManifestAsset, service?: string): ProvenanceRecord[] {
  // A sheet is packed by assetgen from other records' files: it has no generation of its own.
  if (!entry.spec || !entry.files.length || entry.kind === 'sheet') return [];
  const host = entry.service ?? (service || null);
  const same = asset !== undefined && host !== null && specHash(asset, host) === entry.spec;
  const post = postOf(entry, asset);
  // A sliced asset's frames: each its own trim, in the order of `files` (the lock checks there is one per file).
  const trims = entry.trims?.length === entry.files.length ? entry.trims : undefined;
  return entry.files.map((file, index): ProvenanceRecord => {
    const trim = trims?.[index] ?? entry.trim;
    return {
      file: file.path,
      sha256: file.sha256,
      size: file.size,
      asset: id,
      kind: entry.kind,
      ...(same && asset.prompt !== undefined ? { prompt: asset.prompt.trim() } : {}),
      ...(same && asset.set ? { set: asset.set } : {}),
      ...(entry.agent !== undefined ? { agent: entry.agent } : {}),
      ...(entry.workflow !== undefined ? { workflow: entry.workflow } : {}),
      service: host,
      ...(entry.jobId !== undefined ? { jobId: entry.jobId } : {}),
      ...(entry.generationId !== undefined ? { generationId: entry.generationId } : {}),
      ...(entry.generation !== undefined ? { idempotencyKey: idempotencyKeyFor(id, entry.spec!, entry.generation) } : {}),
      generatedAt: entry.finishedAt ?? null,
      credits: entry.credits ?? null,
      digitalSourceType: DIGITAL_SOURCE_TYPE,
      ...(post ? { post } : {}),
      ...(trim ? { trim } : {}),
      generator: 'assetgen',
    };
  });
}

/** A sidecar's text: keys sorted, two-space indent, final newline (the same record gives the same bytes). */
export const sidecarText = (record: ProvenanceRecord): string => `${stableStringify(record, 2)}\n`;

/** The post steps a lock entry (or one of its files) records, read defensively: a list, or nothing. */
/**
 * The post steps that made an entry's files: the lock records their hash (pipeline/post.ts), so
 * they are the manifest's steps for the asset when those still hash the same; else unknown.
 */
export function postOf(entry: LockEntry, asset: ManifestAsset | undefined): readonly PostStep[] | undefined {
  return asset?.post?.length && entry.post === postHash(asset.post) ? asset.post : undefined;
}

/** A post step for people, as the imaging module words it: `trim`, `resize 64×64 contain nearest`, `palette 8`. */
export const describePostStep = (step: PostStep): string => describePostSteps([step]);

/** A file in a disclosure: its record, and whether it is still as assetgen wrote it. */
export type DisclosedFile = ProvenanceRecord & { state: 'as generated' | 'edited' };

/** `assetgen report --disclosure`: the AI-generated files of a project. */
export interface Disclosure {
  manifest: string;
  lock: string;
  digitalSourceType: typeof DIGITAL_SOURCE_TYPE;
  files: DisclosedFile[];
  /** Files the lock records that are not on disk (not listed). */
  missing: string[];
  totals: { files: number; assets: number; edited: number; credits: number };
}

/** The disclosure as Markdown: a sentence, then one table row per file (for store and legal paperwork). */
export function disclosureMarkdown(disclosure: Disclosure, manifest: string): string {
  const { files, totals } = disclosure;
  const lines = [
    '# AI-generated files',
    '',
    `${totals.files} file${totals.files === 1 ? '' : 's'} of ${markdownCell(manifest)} ${totals.files === 1 ? 'was' : 'were'} generated by an AI ` +
      `service through assetgen (IPTC digital source type: trainedAlgorithmicMedia, ${DIGITAL_SOURCE_TYPE}).` +
      (totals.edited ? ` ${totals.edited} of them ${totals.edited === 1 ? 'was' : 'were'} edited since.` : ''),
  ];
  if (files.length) {
    const post = files.some((file) => file.post);
    lines.push(
      '',
      `| file | asset | made with | prompt | service | job | generated | credits |${post ? ' post steps |' : ''} sha256 |`,
      `|---|---|---|---|---|---|---|---:|${post ? '---|' : ''}---|`,
      ...files.map((file) => {
        const madeWith =
          file.workflow !== undefined ? `workflow ${file.workflow}` : file.agent !== undefined ? `agent ${file.agent}` : 'service default';
        const prompt =
          file.prompt ??
          (file.set
            ? Object.entries(file.set)
                .map(([node, text]) => `${node}: ${text}`)
                .join('; ')
            : '—');
        // The service's id of what made the file: a video job, a run, or an image's generation.
        const made = file.jobId ?? file.generationId;
        const cells = [
          `${markdownCell(file.file, 'code')}${file.state === 'edited' ? ' (edited since)' : ''}`,
          markdownCell(file.asset),
          markdownCell(madeWith),
          markdownCell(prompt),
          markdownCell(file.service ?? '—'),
          made !== undefined ? markdownCell(made, 'code') : '—',
          markdownCell(file.generatedAt ?? '—'),
          file.credits === null ? '—' : String(file.credits),
          ...(post ? [file.post ? markdownCell(file.post.map(describePostStep).join(', ')) : '—'] : []),
          markdownCell(file.sha256, 'code'),
        ];
        return `| ${cells.join(' | ')} |`;
      }),
    );
  }
  if (disclosure.missing.length)
    lines.push('', `Not on disk (not listed): ${disclosure.missing.map((file) => markdownCell(file, 'code')).join(', ')}.`);
  return lines.join('\n');
}
