// Planning's `workflows list` (charged with the API key: the mock, 1 credit) is needed only to check
// who owns the files of a workflow the build will run, when one of them may clash with another
// asset's output. It is made after everything that can refuse the build for free — an unmatched
// selector, a video confirmation (--yes, or a yes on a terminal), the targets — and only for the
// workflow assets the build runs. A dry run never makes it: it says what it could not learn. A "no"
// at the confirmation says "nothing was charged" only when nothing was (the confirmation on a
// terminal: test/slow/planning-list-order-terminal.test.ts).
import { describe, expect, it } from 'vitest';
import { parseJson } from '../support/cli.js';
import { MANIFEST, usePlanningProject } from '../support/planning-list.js';

const { project, lists, write } = usePlanningProject();
const spent = async (): Promise<number> => (await project.ledger()).reduce((sum, entry) => sum - entry.amount, 0);

describe("planning's charged `workflows list` comes after the free refusals", () => {
  it('a build of videos without --yes and no terminal is refused (exit 2) before the list: nothing charged', async () => {
    write();
    const result = await project.run(['build', '--json']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('pass --yes to confirm');
    expect(await spent()).toBe(0);
    expect(JSON.parse(result.stderr.trim()).error.credits).toBeUndefined();
  });

  it('an unmatched selector is refused (exit 2) before the list: nothing charged', async () => {
    write();
    const result = await project.run(['build', 'hero-extar', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(2);
    expect(JSON.parse(result.stderr.trim()).error.message).toContain('No asset matches "hero-extar"');
    expect(await spent()).toBe(0);
  });

  it('a build that does not run the workflow (only the image selected) lists nothing', async () => {
    write();
    const result = await project.run(['build', 'hero-extra', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const document = parseJson(result);
    expect(document.planningCredits).toBeUndefined();
    expect(await lists()).toBe(0);
    expect(await spent()).toBe(document.totals.credits);
    expect(document.credits.charged).toBe(document.totals.credits);
  });

  it('a build that runs the workflow lists once, after the checks, and counts it as planning', async () => {
    write(MANIFEST.replace(/ {2}- \{ id: torch.*\n/, ''));
    const result = await project.run(['build', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const document = parseJson(result);
    expect(await lists()).toBe(1);
    expect(document.planningCredits).toBe(1);
    expect(await spent()).toBe(document.totals.credits + 1);
  });

  it('a clash only the list can show: exit 2 after the list, which says what it was charged (never "nothing was sent")', async () => {
    // The mock's wf_sprite_sheet has an `idle` node: hero-idle.* is also the workflow's file.
    write(MANIFEST.replace('hero-extra', 'hero-idle').replace(/ {2}- \{ id: torch.*\n/, ''));
    const json = await project.run(['build', '--json']);
    expect(json.code, json.stderr).toBe(2);
    const error = JSON.parse(json.stderr.trim()).error;
    expect(error.message).toContain('Two assets would write the same file (no asset was sent)');
    expect(error.credits).toMatchObject({ charged: 1 });
    expect(await spent()).toBe(1);
    const human = await project.run(['build']);
    expect(human.code, human.stderr).toBe(2);
    expect(human.stderr).toContain('Charged 1 credit;');
  });

  it('a dry run sends nothing, and says which workflow nodes it could not learn (the build asks for them)', async () => {
    write();
    const result = await project.run(['build', '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(await spent()).toBe(0);
    expect(result.stderr).toContain('The dry run did not learn the nodes of workflow wf_sprite_sheet');
    // Not said when the build would not ask: the workflow left out by the selection.
    const image = await project.run(['build', 'hero-extra', '--dry-run']);
    expect(image.code, image.stderr).toBe(0);
    expect(image.stderr).not.toContain('did not learn');
  });
});
