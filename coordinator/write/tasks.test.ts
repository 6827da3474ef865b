import { describe, expect, it } from 'vitest';
import { MAX_COMPLETED_TASKS, Tasks } from './tasks.ts';

describe('Tasks', () => {
  it(`keeps the ${MAX_COMPLETED_TASKS} most recent completed results and drops older ones`, async () => {
    const tasks = new Tasks('n');
    const ids: string[] = [];
    for (let i = 0; i < MAX_COMPLETED_TASKS + 5; i++)
      ids.push(
        tasks.start(
          'a',
          'd',
          () => ({}),
          () => Promise.resolve({ i }),
        ),
      );
    await new Promise((r) => setTimeout(r, 10));
    expect(tasks.get(ids[0])).toBeUndefined();
    expect(tasks.get(ids[4])).toBeUndefined();
    expect(tasks.get(ids[5])).toMatchObject({ completed: true, response: { i: 5 } });
    expect(tasks.get(ids.at(-1)!)).toMatchObject({ completed: true });
  });

  it('never drops a running task', async () => {
    const tasks = new Tasks('n');
    let finish = (): void => undefined;
    const running = tasks.start(
      'a',
      'd',
      () => ({}),
      () => new Promise((r) => (finish = () => r({}))),
    );
    for (let i = 0; i < MAX_COMPLETED_TASKS + 5; i++)
      tasks.start(
        'a',
        'd',
        () => ({}),
        () => Promise.resolve({}),
      );
    await new Promise((r) => setTimeout(r, 10));
    expect(tasks.get(running)).toMatchObject({ completed: false });
    finish();
  });

  it('cancels a running cancellable task, and refuses one that cannot be cancelled', async () => {
    const tasks = new Tasks('n');
    let stop = (): void => undefined;
    const stopped = new Promise<void>((r) => (stop = r));
    const id = tasks.start(
      'a',
      'd',
      () => ({}),
      async () => {
        await stopped;
        return { done: true };
      },
      stop,
    );
    expect(tasks.get(id)?.task.cancellable).toBe(true);
    expect(tasks.cancel(id)?.task.cancelled).toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    expect(tasks.get(id)).toMatchObject({ completed: true, response: { done: true } });
    expect(tasks.cancel(id)).toBeUndefined(); // completed
    expect(tasks.cancel('n:999')).toBeUndefined();
    const plain = tasks.start(
      'a',
      'd',
      () => ({}),
      () => new Promise(() => undefined),
    );
    expect(tasks.get(plain)?.task.cancellable).toBe(false);
    expect(() => tasks.cancel(plain)).toThrow(`task [${plain}] doesn't support cancellation`);
  });
});
