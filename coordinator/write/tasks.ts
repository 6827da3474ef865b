/**
 * Background tasks of this coordinator (ES task management, for `wait_for_completion=false`):
 * each task has an id `{node}:{n}`, a live status, and once finished its response (or error),
 * kept in memory until the process exits (ES stores results in the `.tasks` index).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/tasks.html
 */
import { illegalArgument, toEsError } from '../../protocol/errors.ts';

/** One task as `GET /_tasks/{id}` reports it. */
export interface TaskRecord {
  completed: boolean;
  task: {
    node: string;
    id: number;
    type: 'transport';
    action: string;
    status: unknown;
    description: string;
    start_time_in_millis: number;
    running_time_in_nanos: number;
    cancellable: boolean;
    cancelled: boolean;
    headers: Record<string, string>;
  };
  response?: unknown;
  error?: unknown;
}

/**
 * Completed task results one coordinator keeps (oldest dropped first): ES stores them in the
 * `.tasks` index; Folio keeps them in memory, so each `wait_for_completion=false` request must not
 * hold memory for good.
 */
export const MAX_COMPLETED_TASKS = 1000;

/** The task registry of one coordinator process. */
export class Tasks {
  private readonly node: string;
  private next = 1;
  private readonly tasks = new Map<string, { record: TaskRecord; status: () => unknown; cancel?: () => void }>();
  /** Ids of completed tasks, oldest first. */
  private readonly completed: string[] = [];

  constructor(node: string) {
    this.node = node;
  }

  /**
   * Starts `run` in the background and returns its id (`{node}:{n}`). `status` is read on every
   * `get` while the task runs; `cancel`, when given, makes the task cancellable ({@link Tasks.cancel}).
   */
  start(action: string, description: string, status: () => unknown, run: () => Promise<unknown>, cancel?: () => void): string {
    const n = this.next++;
    const id = `${this.node}:${n}`;
    const record: TaskRecord = {
      completed: false,
      task: {
        node: this.node,
        id: n,
        type: 'transport',
        action,
        status: status(),
        description,
        start_time_in_millis: Date.now(),
        running_time_in_nanos: 0,
        cancellable: cancel !== undefined,
        cancelled: false,
        headers: {},
      },
    };
    this.tasks.set(id, { record, status, cancel });
    run()
      .then(
        (response) => {
          record.completed = true;
          record.response = response;
        },
        (err) => {
          record.completed = true;
          record.error = toEsError(err).toCause();
        },
      )
      .finally(() => {
        record.task.status = status();
        record.task.running_time_in_nanos = (Date.now() - record.task.start_time_in_millis) * 1e6;
        this.completed.push(id);
        while (this.completed.length > MAX_COMPLETED_TASKS) this.tasks.delete(this.completed.shift()!);
      });
    return id;
  }

  /**
   * Cancels a running task (ES `POST /_tasks/{id}/_cancel`): marks it `cancelled` and asks it to stop;
   * it completes once its run returns.
   * @returns the task's record, or undefined for an unknown or completed task
   * @throws EsError 400 `illegal_argument_exception` `task [id] doesn't support cancellation` (ES's text)
   */
  cancel(id: string): TaskRecord | undefined {
    const t = this.tasks.get(id);
    if (!t || t.record.completed) return undefined;
    if (!t.cancel) throw illegalArgument(`task [${id}] doesn't support cancellation`);
    t.record.task.cancelled = true;
    t.cancel();
    return this.get(id);
  }

  /** The task's current record, or undefined for an unknown id. */
  get(id: string): TaskRecord | undefined {
    const t = this.tasks.get(id);
    if (!t) return undefined;
    const r = t.record;
    if (!r.completed) {
      r.task.status = t.status();
      r.task.running_time_in_nanos = (Date.now() - r.task.start_time_in_millis) * 1e6;
    }
    return structuredClone(r);
  }
}
