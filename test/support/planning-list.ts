// The project of the planning-list tests (test/project/planning-list-order.test.ts, and on a terminal
// test/slow/planning-list-order-terminal.test.ts): a workflow asset whose files may clash with an
// image's, and a video (a confirmation), on the mock with the API key (the list costs 1 credit).
import fs from 'node:fs';
import path from 'node:path';
import { useMockProject, type MockProject } from './project.js';

// A workflow asset beside an image whose name starts with its id (its nodes are needed), and a video.
export const MANIFEST = [
  'defaults: { agent: sprite-artist, out: assets/ }',
  'assets:',
  '  - { id: hero, workflow: wf_sprite_sheet, out: assets/ }',
  '  - { id: hero-extra, prompt: extra thing }',
  '  - { id: torch, video: a torch, out: assets/fx/ }',
  '',
].join('\n');

/** The mock project (its hooks registered by the calling file), how many `workflows list` the ledger has, and the manifest's writer. */
export function usePlanningProject(): { project: MockProject; lists: () => Promise<number>; write: (manifest?: string) => void } {
  const project = useMockProject({ mock: { credits: 1_000 }, config: { credits: 1_000, faults: { rate: 0 }, videoPollAfterMs: 20 } });
  return {
    project,
    lists: async () => (await project.ledger()).filter((entry) => entry.reason === 'list workflows').length,
    write: (manifest = MANIFEST) => fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), manifest),
  };
}
