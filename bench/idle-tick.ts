// What an idle 15-minute tick costs the S3 sink: documents rendered and written, and S3 requests by kind, on
// idle ticks after a cold publish, with the bucket listed on every tick (RESET_S3_LIST_EVERY=1, the old
// behaviour) and at the default cadence (docs/s3.md "Listing"). Sources are off: an idle tick.
//
//   RESET_TEST_S3_ENDPOINT=http://127.0.0.1:7480 npx tsx bench/idle-tick.ts [events]
// Without `events` it builds today's data/; with it, a synthetic archive of that many events (each event is five
// objects: mind the OSD size of the radosgw you point it at).
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createS3Sink } from '../builder/publish/s3-sink.ts';
import { run } from '../builder/run.ts';
import { createS3Client } from '../builder/s3/client.ts';
import { DEFAULT_LIST_EVERY } from '../builder/s3/config.ts';
import { createHttpFetcher } from '../builder/sources/http-fetcher.ts';
import { createMemoryStateStorage, createMemoryStateStore } from '../test/helpers/memory-store.ts';
import { startS3Proxy } from '../test/helpers/s3-proxy.ts';
import { BENCH_NOW, ROOT, writeSyntheticData } from './lib.ts';

const TICK_MS = 15 * 60 * 1000;
const IDLE_TICKS = 3;

async function dataDirFor(events: number | null): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  if (events === null) return { dir: path.join(ROOT, 'data'), cleanup: async () => {} };
  const work = await mkdtemp(path.join(tmpdir(), 'rsa-idle-'));
  return { dir: await writeSyntheticData(work, events), cleanup: () => rm(work, { recursive: true, force: true }) };
}

/** Empties and removes a bucket this bench made. */
export async function removeBucket(client: S3Client, bucket: string): Promise<void> {
  for (;;) {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (page.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [{ Key: o.Key }]));
    if (keys.length === 0) break;
    await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
  }
  await client.send(new DeleteBucketCommand({ Bucket: bucket }));
}

async function measure(endpoint: string, dataDir: string, listEvery: number): Promise<string[]> {
  // Counted at a proxy: every request of the tick, whichever client sent it.
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
  proxy.onRequest = (r) => {
    // A GET of the bucket itself (no key) is a listing page.
    const c = r.key === '' && r.method === 'GET' ? 'LIST' : r.method;
    counts[c] = (counts[c] ?? 0) + 1;
  };
  const bucket = `rsa-idle-${listEvery}-${Date.now().toString(36)}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  let ms = Date.parse(BENCH_NOW);
  const sink = createS3Sink({ client, bucket, now: () => new Date(ms), listEvery });
  const storage = createMemoryStateStorage();
  const tick = () =>
    run({
      now: () => new Date(ms),
      fetcher: createHttpFetcher(),
      sources: [],
      store: createMemoryStateStore(storage),
      sink,
      dataDir,
    });
  await tick();
  const rows: string[] = [];
  try {
    for (let i = 1; i <= IDLE_TICKS; i++) {
      ms += TICK_MS;
      for (const k of Object.keys(counts)) delete counts[k];
      const s = await tick();
      const p = s.published!;
      const kinds = Object.entries(counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      rows.push(`| ${listEvery} | ${i} | ${s.documents} | ${p.written} | ${p.requests} | ${kinds} |`);
    }
  } finally {
    await removeBucket(client, bucket);
    await proxy.close();
  }
  return rows;
}

const endpoint = process.env.RESET_BENCH_S3_ENDPOINT ?? process.env.RESET_TEST_S3_ENDPOINT ?? '';
if (endpoint === '')
  throw new Error('[bench/idle-tick] set RESET_TEST_S3_ENDPOINT (or RESET_BENCH_S3_ENDPOINT) to a radosgw');
const events = process.argv[2] === undefined ? null : Number(process.argv[2]);
const data = await dataDirFor(events);
try {
  const rows = ['| listEvery | idle tick | documents | written | S3 requests | by kind |', '|---|---|---|---|---|---|'];
  for (const listEvery of [1, DEFAULT_LIST_EVERY]) rows.push(...(await measure(endpoint, data.dir, listEvery)));
  console.log(
    `idle ticks after a cold publish, ${events === null ? "today's data/" : `${events} synthetic events`}:\n${rows.join('\n')}`,
  );
} finally {
  await data.cleanup();
}
