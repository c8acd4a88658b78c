// What an idle 15-minute tick (nothing new, sources off) costs: documents written by the local sink, and with an S3
// endpoint the S3 requests by kind, counted at a proxy, listing the bucket on every tick (RESET_S3_LIST_EVERY=1) and
// at the default cadence (docs/s3.md "Listing"). Every tick follows a cold publish of today's data/.
//   npx tsx bench/idle-tick.ts
//   RESET_TEST_S3_ENDPOINT=http://127.0.0.1:7480 npx tsx bench/idle-tick.ts
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalSink } from '../builder/publish/local-sink.ts';
import { createS3Sink } from '../builder/publish/s3-sink.ts';
import type { Sink } from '../builder/publish/sink.ts';
import { run } from '../builder/run.ts';
import { createS3Client } from '../builder/s3/client.ts';
import { DEFAULT_LIST_EVERY } from '../builder/s3/config.ts';
import { createHttpFetcher } from '../builder/sources/http-fetcher.ts';
import { createMemoryStateStore } from '../test/helpers/memory-store.ts';
import { startS3Proxy } from '../test/helpers/s3-proxy.ts';
import { createTestBucket, removeTestBucket } from '../test/s3/helpers.ts';
import { BENCH_NOW, ROOT } from './lib.ts';

const TICK_MS = 15 * 60 * 1000;
const IDLE_TICKS = 3;

/** A cold publish (tick 0), then IDLE_TICKS idle ticks 15 minutes apart; `each` sees every tick. */
async function ticks(
  makeSink: (now: () => Date) => Sink,
  each: (i: number, documents: number, written: number) => void,
) {
  let ms = Date.parse(BENCH_NOW);
  const now = () => new Date(ms);
  const sink = makeSink(now);
  const store = createMemoryStateStore();
  const tick = () =>
    run({ now, fetcher: createHttpFetcher(), sources: [], store, sink, dataDir: path.join(ROOT, 'data') });
  for (let i = 0; i <= IDLE_TICKS; i++, ms += TICK_MS) {
    const s = await tick();
    each(i, s.documents, s.published!.written);
  }
}

const work = await mkdtemp(path.join(tmpdir(), 'rsa-idle-'));
try {
  console.log('| idle tick | documents | written |\n|---|---|---|');
  await ticks(
    () => createLocalSink(path.join(work, 'dist')),
    (i, documents, written) => {
      if (i > 0) console.log(`| ${i} | ${documents} | ${written} |`);
    },
  );
} finally {
  await rm(work, { recursive: true, force: true });
}

const endpoint = process.env.RESET_TEST_S3_ENDPOINT ?? '';
if (endpoint === '') console.log('\n(set RESET_TEST_S3_ENDPOINT to a radosgw to count S3 requests)');
else {
  console.log('\n| listEvery | idle tick | written | S3 requests by kind |\n|---|---|---|---|');
  for (const listEvery of [1, DEFAULT_LIST_EVERY]) {
    const proxy = await startS3Proxy(endpoint);
    const client = createS3Client(
      { region: process.env.RESET_TEST_S3_REGION ?? 'us-east-1', endpoint: proxy.url },
      {
        credentials: {
          accessKeyId: process.env.RESET_TEST_S3_ACCESS_KEY_ID ?? 'reset-test-access-key',
          secretAccessKey: process.env.RESET_TEST_S3_SECRET_ACCESS_KEY ?? 'reset-test-secret-key',
        },
      },
    );
    const counts: Record<string, number> = {};
    // A GET of the bucket itself (no key) is a listing page.
    proxy.onRequest = (r) => {
      const kind = r.key === '' && r.method === 'GET' ? 'LIST' : r.method;
      counts[kind] = (counts[kind] ?? 0) + 1;
    };
    const bucket = await createTestBucket(client, `idle-${listEvery}`);
    try {
      await ticks(
        (now) => createS3Sink({ client, bucket, now, listEvery }),
        (i, _documents, written) => {
          const kinds = Object.entries(counts).map(([k, v]) => `${k} ${v}`);
          if (i > 0) console.log(`| ${listEvery} | ${i} | ${written} | ${kinds.join(', ')} |`);
          for (const k of Object.keys(counts)) delete counts[k];
        },
      );
    } finally {
      await removeTestBucket(client, bucket);
      await proxy.close();
    }
  }
}
