// Planning's charged `workflows list` and the video confirmation on a real terminal
// (test/project/planning-list-order.test.ts has the rest): a "no" charges nothing and says so, a
// "yes" is answered before the list is made. In the slow tier: it drives the CLI on a pseudo-terminal.
import { describe, expect, it } from 'vitest';
import { spawnPty } from '../support/pty.js';
import { usePlanningProject } from '../support/planning-list.js';

const { project, lists, write } = usePlanningProject();

describe("planning's charged `workflows list` comes after the free refusals", () => {
  it('on a terminal, "no" at the video confirmation: nothing was charged, and it is true', async () => {
    write();
    const session = spawnPty(['build', '--no-color'], { env: project.env(), cwd: project.cwd });
    await session.waitFor('Go ahead?');
    session.write('n\r');
    expect(await session.exit).toBe(2);
    expect(session.output()).toContain('Cancelled: nothing was charged.');
    expect(await project.ledger()).toEqual([]);
  });

  it('on a terminal, "yes": the list is made after the answer, and the build goes on', async () => {
    write();
    const session = spawnPty(['build', '--no-color'], { env: project.env(), cwd: project.cwd });
    await session.waitFor('Go ahead?');
    // Bounded: the prompt waits; whatever planning would charge it has charged by now.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await lists()).toBe(0);
    session.write('y\r');
    expect(await session.exit).toBe(0);
    expect(await lists()).toBe(1);
  });
});
