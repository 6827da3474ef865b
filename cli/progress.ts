/**
 * The progress line of the CLI (`cli-progress` on stderr): a bar when a total is known, documents
 * done (and the total when known), docs/s since the start, and the error count. Without a TTY (or
 * with `--quiet`) nothing is drawn; the command prints its summary line instead.
 * @see https://github.com/npkill/cli-progress
 */
import cliProgress from 'cli-progress';

/** Values shown on the progress line. */
export interface ProgressState {
  /** Documents done. */
  docs: number;
  /** Documents expected, when known. */
  totalDocs?: number;
  errors: number;
  /** Bar position and length in any unit (bytes of the input, or documents); omitted = no bar. */
  value?: number;
  total?: number;
}

/** A progress line; {@link Progress.stop} clears the drawing and returns the elapsed milliseconds. */
export interface Progress {
  update(state: ProgressState): void;
  stop(): number;
}

/** Docs per second for `docs` in `elapsedMs` (0 before any time has passed). */
export function docsPerSecond(docs: number, elapsedMs: number): number {
  return elapsedMs > 0 ? Math.round((docs * 1000) / elapsedMs) : 0;
}

/** Creates the progress line for `label` (`load books`); drawn only when `enabled` and stderr is a TTY. */
export function createProgress(label: string, enabled: boolean): Progress {
  const started = Date.now();
  const draw = enabled && process.stderr.isTTY === true;
  const bar = draw
    ? new cliProgress.SingleBar(
        {
          format: `${label} {bar} {percentage}% | {docsText} docs | {rate} docs/s | {errors} errors | {duration_formatted}`,
          hideCursor: true,
          fps: 5,
          stream: process.stderr,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let state: 'new' | 'running' | 'stopped' = 'new';
  return {
    update(s) {
      if (!bar || state === 'stopped') return;
      const payload = {
        docsText: s.totalDocs === undefined ? `${s.docs}` : `${s.docs}/${s.totalDocs}`,
        rate: docsPerSecond(s.docs, Date.now() - started),
        errors: s.errors,
      };
      const total = s.total ?? s.totalDocs ?? 0;
      const value = s.value ?? s.docs;
      if (state === 'new') {
        bar.start(Math.max(total, 1), value, payload);
        state = 'running';
      } else {
        if (total > 0) bar.setTotal(total);
        bar.update(value, payload);
      }
    },
    stop() {
      if (bar && state === 'running') bar.stop();
      state = 'stopped';
      return Date.now() - started;
    },
  };
}
