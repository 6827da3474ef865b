/**
 * The `folio` command line: `load`, `dump` and `reindex` wired with `commander` (plus the `users` and
 * `api-key` file commands of auth-commands.ts), their summaries,
 * and the exit codes (0 ok, 1 usage error, 2 completed with document errors, 3 fatal).
 * @see https://github.com/tj/commander.js
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { registerAuthCommands, UsageError } from './auth-commands.ts';
import { runDump } from './dump.ts';
import { INPUT_FORMATS } from './input/index.ts';
import type { InputFormat } from './input/index.ts';
import { runLoad } from './load.ts';
import { parseQueryFlag, parseSortFlag } from './pit-walk.ts';
import { runReindex } from './reindex.ts';

/** Exit codes of `folio`. */
export const EXIT_CODES = { ok: 0, usage: 1, documentErrors: 2, fatal: 3 } as const;

/** Default cluster URL (overridden by `--url` or `FOLIO_URL`). */
export const DEFAULT_URL = 'http://127.0.0.1:9200';

/** Where the CLI writes; tests capture it. */
export interface Io {
  err: (text: string) => void;
  /** Results printed on stdout (`api-key create`); defaults to process.stdout. */
  out?: (text: string) => void;
}

/** Parses a positive integer flag value. */
function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer.');
  return n;
}

/** Parses a JSON flag (`--query`) as a usage error when malformed. */
function queryFlag(value: string): unknown {
  try {
    return parseQueryFlag(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** Parses `--sort` as a usage error when malformed. */
function sortFlag(value: string): unknown[] {
  try {
    return parseSortFlag(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** `3` for `interrupted`, `2` when documents failed, else `0`. */
function outcome(errors: number, interrupted = false): number {
  if (interrupted) return EXIT_CODES.fatal;
  return errors > 0 ? EXIT_CODES.documentErrors : EXIT_CODES.ok;
}

/** An AbortSignal fired by the first Ctrl-C; a second one exits at once. */
function interruptSignal(io: Io): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const second = () => process.exit(EXIT_CODES.fatal);
  const first = () => {
    io.err('interrupted: finishing the batches in flight and writing the checkpoint (Ctrl-C again to quit now)\n');
    ac.abort();
    process.once('SIGINT', second);
  };
  process.once('SIGINT', first);
  return { signal: ac.signal, dispose: () => (process.off('SIGINT', first), process.off('SIGINT', second)) };
}

/** The program-wide flags, as commander parses them (`--url` always has its default). */
interface GlobalFlags {
  url: string;
  quiet?: boolean;
}

/** `folio load` flags, as commander parses them (`--no-refresh` sets `refresh: false`). */
interface LoadFlags {
  index: string;
  shards?: number;
  batch: number;
  format?: InputFormat;
  idField?: string;
  inferTypes?: boolean;
  errors?: string;
  checkpoint?: string;
  resume?: boolean;
  refresh: boolean;
}

/** `folio dump` flags, as commander parses them. */
interface DumpFlags {
  index: string;
  query?: unknown;
  sort?: unknown[];
  out?: string;
  withId?: boolean;
  size: number;
  slices: number;
}

/** `folio reindex` flags, as commander parses them. */
interface ReindexFlags {
  source: string;
  dest: string;
  destUrl?: string;
  stream?: boolean;
  query?: unknown;
  batch: number;
  slices: number;
  errors?: string;
}

/** Builds the program; each action stores its exit code in `result.code`. */
function buildProgram(io: Io, result: { code: number }): Command {
  const program = new Command('folio')
    .description('Load, dump and copy Folio (or Elasticsearch) indices')
    .addOption(new Option('--url <url>', 'cluster URL').env('FOLIO_URL').default(DEFAULT_URL))
    .option('-q, --quiet', 'no progress bar')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: io.err });

  addLoadCommand(program, io, result);
  addDumpCommand(program, io, result);
  addReindexCommand(program, io, result);
  addAuthCommands(program, io, result);
  return program;
}

/** `folio load <file> -i <index>`: runLoad with its summary line; exit 2 when records failed, 3 when interrupted. */
function addLoadCommand(program: Command, io: Io, result: { code: number }): void {
  program
    .command('load')
    .description('load NDJSON, a JSON array or CSV/TSV into an index through _bulk')
    .argument('<file>', 'input file (.ndjson/.jsonl, .json, .csv, .tsv; else sniffed)')
    .requiredOption('-i, --index <name>', 'target index (created when absent)')
    .option('--shards <n>', 'number_of_shards when the index is created', positiveInt)
    .option('--batch <n>', 'documents per _bulk request', positiveInt, 5000)
    .addOption(new Option('--format <format>', 'input format').choices(INPUT_FORMATS))
    .option('--id-field <field>', 'take _id from this field (dots walk into objects); makes --resume exact')
    .option('--infer-types', 'CSV: numbers, booleans and empty cells (null) instead of strings')
    .option('--errors <file>', 'failed records (default <index>.errors.ndjson)')
    .option('--checkpoint <file>', 'checkpoint file (default .folio-load-<index>.json beside the input)')
    .option('--resume', 'skip what the checkpoint records as acknowledged')
    .option('--no-refresh', 'do not refresh the index at the end')
    .action(async (file: string, opts: LoadFlags, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalFlags>();
      const interrupt = interruptSignal(io);
      try {
        const s = await runLoad({
          url: g.url,
          file,
          index: opts.index,
          shards: opts.shards,
          batch: opts.batch,
          format: opts.format,
          idField: opts.idField,
          inferTypes: opts.inferTypes,
          errorsFile: opts.errors,
          checkpoint: opts.checkpoint,
          resume: opts.resume,
          refresh: opts.refresh,
          quiet: g.quiet,
          signal: interrupt.signal,
          log: (l) => io.err(l + '\n'),
        });
        io.err(
          `loaded ${s.docs} docs into [${s.index}] in ${(s.elapsedMs / 1000).toFixed(1)} s (${s.docsPerSecond} docs/s)` +
            `${s.errors ? `, ${s.errors} errors written to ${s.errorsFile}` : ''}` +
            `${s.interrupted ? `; stopped after ${s.format === 'json' ? 'record' : 'line'} ${s.checkpoint.position}, continue with --resume` : ''}\n`,
        );
        result.code = outcome(s.checkpoint.errors, s.interrupted);
      } finally {
        interrupt.dispose();
      }
    });
}

/** `folio dump -i <index>`: runDump with its summary line. */
function addDumpCommand(program: Command, io: Io, result: { code: number }): void {
  program
    .command('dump')
    .description('write an index as NDJSON (point in time + search_after)')
    .requiredOption('-i, --index <name>', 'index to dump')
    .option('--query <json>', 'a query clause, e.g. \'{"term":{"country":"AT"}}\'', queryFlag)
    .option('--sort <fields>', 'sort, e.g. population:desc,name (default _shard_doc)', sortFlag)
    .option('-o, --out <file>', 'output file (default stdout)')
    .option('--with-id', 'write {"_id", "_source"} lines (folio load reads them back with their ids)')
    .option('--size <n>', 'hits per page', positiveInt, 1000)
    .option('--slices <n>', 'walk the index in n sliced walks at once (lines then come in no overall order)', positiveInt, 1)
    .action(async (opts: DumpFlags, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalFlags>();
      const s = await runDump({
        url: g.url,
        index: opts.index,
        query: opts.query,
        sort: opts.sort,
        out: opts.out,
        withId: opts.withId,
        pageSize: opts.size,
        slices: opts.slices,
        quiet: g.quiet,
      });
      io.err(`dumped ${s.docs} docs from [${opts.index}] in ${(s.elapsedMs / 1000).toFixed(1)} s (${s.docsPerSecond} docs/s)\n`);
      result.code = EXIT_CODES.ok;
    });
}

/** `folio reindex --source <index> --dest <index>`: runReindex with its summary line; exit 2 when documents failed. */
function addReindexCommand(program: Command, io: Io, result: { code: number }): void {
  program
    .command('reindex')
    .description('copy an index: POST /_reindex on one cluster, or a streamed copy to --dest-url')
    .requiredOption('--source <index>', 'source index')
    .requiredOption('--dest <index>', 'destination index')
    .option('--dest-url <url>', 'destination cluster (default: the same as --url)')
    .option('--stream', 'copy through the CLI (PIT + search_after into _bulk) even on one cluster')
    .option('--query <json>', 'copy only the hits of this query clause', queryFlag)
    .option('--batch <n>', 'documents per batch', positiveInt, 1000)
    .option('--slices <n>', "copy in n slices at once (the server's _reindex?slices=n, or n sliced walks of a streamed copy)", positiveInt, 1)
    .option('--errors <file>', 'failed documents of a streamed copy (default <dest>.errors.ndjson)')
    .action(async (opts: ReindexFlags, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalFlags>();
      const s = await runReindex({
        url: g.url,
        source: opts.source,
        dest: opts.dest,
        destUrl: opts.destUrl,
        stream: opts.stream,
        query: opts.query,
        batch: opts.batch,
        slices: opts.slices,
        errorsFile: opts.errors,
        quiet: g.quiet,
      });
      io.err(
        `reindexed ${s.docs} docs from [${opts.source}] to [${opts.dest}] (${s.mode === 'server' ? `task ${s.task}` : 'streamed'}) in ${(s.elapsedMs / 1000).toFixed(1)} s (${s.docsPerSecond} docs/s)` +
          `${s.errors ? `, ${s.errors} failed` : ''}\n`,
      );
      result.code = outcome(s.errors);
    });
}

/** The `users` and `api-key` file commands (auth-commands.ts); a UsageError exits 1 with its message. */
function addAuthCommands(program: Command, io: Io, result: { code: number }): void {
  registerAuthCommands(program, { out: io.out ?? ((t) => void process.stdout.write(t)), err: io.err }, async (action) => {
    try {
      await action();
      result.code = EXIT_CODES.ok;
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      io.err(`folio: ${err.message}\n`);
      result.code = EXIT_CODES.usage;
    }
  });
}

/**
 * Runs the CLI on `argv` (`process.argv` shape: node, script, args…) and returns the exit code.
 * @example process.exitCode = await main(process.argv)
 */
export async function main(argv: string[], io: Io = { err: (t) => process.stderr.write(t) }): Promise<number> {
  const result = { code: EXIT_CODES.ok };
  const program = buildProgram(io, result);
  try {
    await program.parseAsync(argv);
    return result.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    }
    io.err(`folio: ${(err as Error).message ?? String(err)}\n`);
    return EXIT_CODES.fatal;
  }
}
