/**
 * The child process of shard-node/storage/segment-crash.test.ts: opens a registry over a data
 * directory (recovering what is there), then writes cities in bulks of {@link BULK} documents
 * (`_id` `c<i>`), each acknowledged once durable (`A <next>` on stdout), refreshing after each bulk
 * (so segments pile up and background merges start, `M` on stdout when one runs) and flushing
 * after every second one (each segment-file write announces `W` on stdout). It never stops by
 * itself before {@link MAX_DOCS}: the parent SIGKILLs it.
 *
 * Run: `node test/support/segment-crash-child.ts <dataDir>`.
 */
import { IndexRegistry } from '../../shard-node/index-registry.ts';
import { SegmentCommits } from '../../shard-node/storage/segment-commits.ts';
import { CRASH_INDEX, crashDoc, crashMetadata } from './segment-crash-docs.ts';

const BULK = 150;
const MAX_DOCS = 20_000;

const dataDir = process.argv[2];
const say = (line: string) => process.stdout.write(`${line}\n`);

const proto = SegmentCommits.prototype;
const write = Object.getOwnPropertyDescriptor(proto, 'write')!.value as SegmentCommits['write'];
proto.write = function (this: SegmentCommits, ...args: Parameters<SegmentCommits['write']>) {
  say('W');
  return write.apply(this, args);
};

const r = new IndexRegistry('n1', { dataDir });
r.recover();
if (r.list().length === 0) r.putIndex(crashMetadata, [0]);
const shard = r.shard(CRASH_INDEX, 0);
let next = shard.stats().docs;
say(`S ${next}`);
for (let bulk = 0; next < MAX_DOCS; bulk++) {
  const ops = Array.from({ length: BULK }, (_, k) => ({ op: 'index' as const, _id: `c${next + k}`, source: crashDoc(next + k), create: false }));
  shard.apply(ops);
  await shard.sync();
  next += BULK;
  say(`A ${next}`);
  await shard.refreshSliced(1);
  if (shard.mergeRunning) say('M');
  if (bulk % 2 === 1) await r.flush(CRASH_INDEX);
}
