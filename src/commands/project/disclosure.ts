// `assetgen report --disclosure`: the list of AI-generated files of a project, from the manifest,
// the lock and the files alone (no network, no credentials) — Markdown for people, the same as one
// document with --json — for store and legal disclosures. The records are src/pipeline/provenance.ts.
import type { CommandContext } from '../../cli/context.js';
import { displayPath } from '../../cli/save.js';
import { planBuild } from '../../pipeline/plan.js';
import { entryOf } from '../../pipeline/lock-history.js';
import {
  DIGITAL_SOURCE_TYPE,
  disclosureMarkdown,
  provenanceRecords,
  type DisclosedFile,
  type Disclosure,
} from '../../pipeline/provenance.js';
import { openPlannedProject } from './open.js';

export async function discloseProject(ctx: CommandContext, file: string | undefined): Promise<Disclosure> {
  const { file: manifestFile, manifest, lockFile, service, lock, hashes } = openPlannedProject(ctx, file);
  const plan = planBuild(manifest, lock, await hashes(), { service, compareSpecs: service !== '' });
  const files: DisclosedFile[] = [];
  const missing: string[] = [];
  const assets = new Set<string>();
  let credits = 0;
  // Every file the lock says assetgen generated, assets gone from the manifest included: they are still in the project.
  for (const item of plan.items) {
    const entry = entryOf(lock, item.id);
    if (!entry) continue;
    const states = new Map(item.files.map((check) => [check.path, check.state]));
    for (const record of provenanceRecords(item.id, entry, item.asset, service)) {
      const state = states.get(record.file) ?? 'ok';
      if (state === 'missing') {
        missing.push(record.file);
        continue;
      }
      files.push({ ...record, state: state === 'edited' ? 'edited' : 'as generated' });
      if (!assets.has(item.id)) credits += entry.credits ?? 0;
      assets.add(item.id);
    }
  }
  const edited = files.filter((entry) => entry.state === 'edited').length;
  return {
    manifest: manifestFile,
    lock: lockFile,
    digitalSourceType: DIGITAL_SOURCE_TYPE,
    files,
    missing,
    totals: { files: files.length, assets: assets.size, edited, credits },
  };
}

export function renderDisclosure(ctx: CommandContext, disclosure: Disclosure): void {
  ctx.out.result(disclosureMarkdown(disclosure, displayPath(ctx, disclosure.manifest)));
}
