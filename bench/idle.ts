// The idle tick: two refreshes 15 minutes apart with the same sources (loopback, recorded shapes) into the same dist
// and state; prints what the second one wrote. Stable documents should be unchanged, only live ones rewritten.
//   npx tsx bench/idle.ts [events]      0 (default): data/ as in the repository; N: N synthetic events
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../builder/run.ts';
import { createLocalSink } from '../builder/publish/local-sink.ts';
import { sourceConfigsFromEnv } from '../builder/sources/config.ts';
import { createHttpFetcher } from '../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../builder/state/local-store.ts';
import { BENCH_NOW, ROOT, startSources, writeSyntheticData } from './lib.ts';

const n = Number(process.argv[2] ?? 0);
const work = await mkdtemp(path.join(tmpdir(), 'rsa-idle-'));
const dataDir = n > 0 ? await writeSyntheticData(path.join(work, 'data'), n) : path.join(ROOT, 'data');
const sources = await startSources();
try {
  for (const [i, at] of [BENCH_NOW, new Date(Date.parse(BENCH_NOW) + 15 * 60 * 1000).toISOString()].entries()) {
    const t0 = performance.now();
    const s = await run({
      now: () => new Date(at),
      fetcher: createHttpFetcher(),
      sources: sourceConfigsFromEnv(sources.env),
      store: createLocalStateStore(path.join(work, 'state'), { now: () => new Date(at) }),
      sink: createLocalSink(path.join(work, 'dist')),
      dataDir,
    });
    const p = s.published!;
    console.log(
      `${i === 0 ? 'cold' : 'idle'} tick at ${at}: ${s.documents} documents, ${p.written} written, ${p.unchanged} unchanged (${(performance.now() - t0).toFixed(0)} ms)`,
    );
  }
} finally {
  await sources.close();
}
