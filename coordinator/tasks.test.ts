import { describe, expect, it } from 'vitest';
import { MAX_COMPLETED_TASKS, Tasks } from './tasks.ts';

describe('Tasks', () => {
  it(`keeps the ${MAX_COMPLETED_TASKS} most recent completed results and drops older ones`, async () => {
    const tasks = new Tasks('n');
    const ids: string[] = [];
    for (let i = 0; i < MAX_COMPLETED_TASKS + 5; i++) ids.push(tasks.start('a', 'd', () => ({}), async () => ({ i })));
    await new Promise((r) => setTimeout(r, 10));
    expect(tasks.get(ids[0])).toBeUndefined();
    expect(tasks.get(ids[4])).toBeUndefined();
    expect(tasks.get(ids[5])).toMatchObject({ completed: true, response: { i: 5 } });
    expect(tasks.get(ids.at(-1)!)).toMatchObject({ completed: true });
  });

  it('never drops a running task', async () => {
    const tasks = new Tasks('n');
    let finish = (): void => undefined;
    const running = tasks.start('a', 'd', () => ({}), () => new Promise((r) => (finish = () => r({}))));
    for (let i = 0; i < MAX_COMPLETED_TASKS + 5; i++) tasks.start('a', 'd', () => ({}), async () => ({}));
    await new Promise((r) => setTimeout(r, 10));
    expect(tasks.get(running)).toMatchObject({ completed: false });
    finish();
  });
});
