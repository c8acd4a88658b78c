// Benchmark 3: publishing the 10,000-event build to radosgw on loopback, cold and after one new event, side by side
// with `aws s3 sync` of the same dist/ to another bucket on the same server. Requests of both are counted by a
// counting HTTP proxy on 127.0.0.1 in front of radosgw, which both go through alike, in a process of its own (so its
// CPU is charged to neither: in the bench's process it was charged to the sink alone).
//
//   RESET_BENCH_S3_ENDPOINT=http://127.0.0.1:7490 npx tsx bench/publish.ts [--quick] [events]
// Without RESET_BENCH_S3_ENDPOINT the bench starts its own radosgw (scripts/rgw.sh, port 7490, a 4 GiB OSD) and stops
// it after. A radosgw of your own needs that room too (RGW_MEMSTORE_BYTES=4294967296 scripts/rgw.sh start ...): a
// full OSD never answers, which the bench sees as read timeouts.
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLocalSink } from '../builder/publish/local-sink.ts';
import { createS3Client, listObjects } from '../builder/s3/client.ts';
import { createS3Sink } from '../builder/publish/s3-sink.ts';
import { DEFAULT_LIST_EVERY } from '../builder/s3/config.ts';
import type { PublishReport, Sink } from '../builder/publish/sink.ts';
import type { OutputDocument } from '../builder/render/output.ts';
import { run } from '../builder/run.ts';
import { createHttpFetcher } from '../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../builder/state/local-store.ts';
import { startS3ProxyProcess } from '../test/helpers/s3-proxy-process.ts';
import type { EventInput } from '../builder/model/schemas.ts';
import {
  BENCH_NOW,
  benchArgs,
  fmtMs,
  median,
  observeDocuments,
  runChild,
  saveResults,
  syntheticEvents,
  table,
} from './lib.ts';

const ACCESS_KEY = 'reset-test-access-key';
const SECRET_KEY = 'reset-test-secret-key';
const OWN_RGW_PORT = 7490;
export const INCREMENTAL_TARGET_SPEEDUP = 10;
export const COLD_TARGET_SPEEDUP = 2;
const BENCH_MEMSTORE_BYTES = 4 * 1024 ** 3;

/** The documents of a build of `events` (one run, captured from the sink), also written to `dist`. */
async function build(dataDir: string, work: string, dist: string): Promise<OutputDocument[]> {
  const docs: OutputDocument[] = [];
  const local = createLocalSink(dist);
  const sink: Sink = {
    name: 'capture',
    publish: (d, o): Promise<PublishReport> =>
      local.publish(
        observeDocuments(d, (doc) => docs.push(doc)),
        o,
      ),
  };
  await run({
    now: () => new Date(BENCH_NOW),
    fetcher: createHttpFetcher(),
    sources: [],
    store: createLocalStateStore(path.join(work, 'state'), { now: () => new Date() }),
    sink,
    dataDir,
  });
  return docs;
}

async function writeData(dir: string, events: unknown[]): Promise<void> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(path.join(dir, 'archive'), { recursive: true });
  await writeFile(
    path.join(dir, 'archive', 'synthetic.json'),
    JSON.stringify({
      archive: {
        name: 'synthetic',
        url: 'https://example.invalid/synthetic',
        license: 'CC0-1.0',
        notice: 'Synthetic benchmark data (seed 42).',
      },
      records: events,
    }),
  );
}

interface Measured {
  ms: number;
  requests: Record<string, number>;
  uploaded: number;
}

export interface PublishResult {
  events: number;
  objects: number;
  sink: { cold: Measured; incremental: Measured[] };
  aws: { cold: Measured; incremental: Measured[] } | null;
  /** aws time / sink time, per incremental round (the production cadence: these rounds do not list). */
  incrementalRatios: number[];
  /** The listing a listing round adds (one in DEFAULT_LIST_EVERY), timed after each round. */
  listings: Measured[];
  /** aws time / (sink time + listing), per round: a listing round. */
  listingRoundRatios: number[];
  /** aws time / the mean sink time over a cadence cycle ((DEFAULT_LIST_EVERY - 1) rounds without listing, one with). */
  cycleRatios: number[];
  awsStartMs: number | null;
}

const INCREMENTAL_ROUNDS = 5;

/** Median wall time of `aws --version`: the CLI's own start-up, which every `aws s3 sync` pays. */
async function awsStartup(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await runChild('aws', ['--version']);
    times.push(performance.now() - t0);
  }
  return median(times);
}

export async function benchPublish(opts: {
  quick: boolean;
  events?: number;
}): Promise<{ result: PublishResult; report: string }> {
  const n = opts.events ?? (opts.quick ? 1_000 : 10_000);
  const work = await mkdtemp(path.join(tmpdir(), 'rsa-bench-publish-'));
  let endpoint = process.env.RESET_BENCH_S3_ENDPOINT ?? '';
  const ownRgw = endpoint === '' ? path.join(work, 'rgw') : null;
  try {
    if (ownRgw) {
      // Two buckets of the build plus the rounds' rewritten histories: the default 512 MiB OSD fills up at 10,000 events.
      const r = await runChild('bash', ['scripts/rgw.sh', 'start', ownRgw, String(OWN_RGW_PORT)], {
        timeoutMs: 180_000,
        env: { RGW_MEMSTORE_BYTES: String(BENCH_MEMSTORE_BYTES) },
      });
      if (r.code !== 0) throw new Error(`could not start radosgw: ${r.stderr.slice(-1500)}`);
      endpoint = `http://127.0.0.1:${OWN_RGW_PORT}`;
    }
    // In a process of its own, like aws: the proxy's CPU is charged to neither tool's measured process.
    const proxy = await startS3ProxyProcess(endpoint);
    try {
      // The project's own client (timeouts, path style, checksums as for any S3-compatible endpoint), on the proxy.
      const client = createS3Client(
        { region: 'us-east-1', endpoint: proxy.url },
        { credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY } },
      );
      const suffix = Date.now().toString(36);
      const bucketSink = `bench-sink-${suffix}`;
      const bucketAws = `bench-aws-${suffix}`;
      for (const b of [bucketSink, bucketAws]) await client.send(new CreateBucketCommand({ Bucket: b }));

      const events = syntheticEvents(n);
      const dataDir = path.join(work, 'data');
      const dist = path.join(work, 'dist');
      await writeData(dataDir, events);
      const docs1 = await build(dataDir, work, dist);

      // The production cadence (docs/s3.md "Listing"): a publish lists the bucket every DEFAULT_LIST_EVERY-th
      // time. The cold publish lists (no manifest yet); the rounds after it do not, so each round also times the listing
      // a listing publish adds, on the same bucket, right after: the listing tick is the round plus that.
      const sink = createS3Sink({ client, bucket: bucketSink, now: () => new Date(BENCH_NOW) });
      const measureSink = async (docs: OutputDocument[]): Promise<Measured> => {
        await proxy.resetCounts();
        const t0 = performance.now();
        const rep = await sink.publish(docs);
        const ms = performance.now() - t0;
        return { ms, requests: Object.fromEntries((await proxy.counts()).byMethod), uploaded: rep.written };
      };
      const measureListing = async (): Promise<Measured> => {
        await proxy.resetCounts();
        const t0 = performance.now();
        await listObjects(client, bucketSink, 'api/', 'bench');
        const ms = performance.now() - t0;
        return { ms, requests: Object.fromEntries((await proxy.counts()).byMethod), uploaded: 0 };
      };
      const hasAws = (await runChild('sh', ['-c', 'command -v aws'])).code === 0;
      const awsEnv = {
        AWS_ACCESS_KEY_ID: ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY: SECRET_KEY,
        AWS_DEFAULT_REGION: 'us-east-1',
      };
      const measureAws = async (): Promise<Measured> => {
        await proxy.resetCounts();
        const t0 = performance.now();
        const r = await runChild(
          'aws',
          [
            's3',
            'sync',
            dist,
            `s3://${bucketAws}/`,
            '--endpoint-url',
            proxy.url,
            '--only-show-errors',
            '--no-progress',
          ],
          { env: awsEnv, timeoutMs: 30 * 60 * 1000 },
        );
        const ms = performance.now() - t0;
        if (r.code !== 0) throw new Error(`aws s3 sync failed: ${r.stderr.slice(-1500)}`);
        // aws uploads files over 8 MiB in parts: a POST starts the upload, one PUT per part, a POST completes it.
        const { byMethod, singlePuts } = await proxy.counts();
        return { ms, requests: Object.fromEntries(byMethod), uploaded: singlePuts + (byMethod.get('POST') ?? 0) / 2 };
      };

      // Cold: alternate which goes first is pointless with one cold shot each; the sink goes first, aws second.
      const progress = (label: string, m: Measured) =>
        console.error(
          `[bench/publish] ${label}: ${fmtMs(m.ms)}, ${m.uploaded} uploaded, requests ${JSON.stringify(m.requests)}`,
        );
      const sinkCold = await measureSink(docs1);
      progress('S3 sink, cold', sinkCold);
      const awsCold = hasAws ? await measureAws() : null;
      if (awsCold) progress('aws s3 sync, cold', awsCold);

      // Incremental rounds: each adds one new global reset, the newest, which changes its event files, the
      // histories, latest and status, nothing else. The order alternates so neither tool always goes first.
      const rounds = opts.quick ? 3 : INCREMENTAL_ROUNDS;
      const incremental: { sink: Measured; aws: Measured | null }[] = [];
      const listings: Measured[] = [];
      const added: EventInput[] = [];
      let lastDocs = docs1;
      for (let i = 0; i < rounds; i++) {
        const fresh = syntheticEvents(1, 7 + i)[0]!;
        fresh.id = `syn-new-event-${i + 1}`;
        // Whole seconds, as the synthetic events have: render's forecast refuses `last_global_reset_at` with a
        // fraction (timesToSeconds({ at }) in render/documents.ts never trims it: `at` is no time field name).
        fresh.announced_at = new Date(Date.parse(BENCH_NOW) - (rounds - i) * 60_000)
          .toISOString()
          .replace('.000Z', 'Z');
        fresh.type = 'global_reset';
        fresh.reason = 'incident';
        fresh.sources = [{ platform: 'X', url: `https://x.com/example/status/${i + 1}`, author: 'example' }];
        added.push(fresh);
        await writeData(dataDir, [...events, ...added]);
        // aws s3 sync compares size and modification time; a second's gap makes every rewritten file newer.
        await new Promise((r) => setTimeout(r, 1100));
        lastDocs = await build(dataDir, work, dist);
        if (i % 2 === 0 || !hasAws) {
          const sinkInc = await measureSink(lastDocs);
          incremental.push({ sink: sinkInc, aws: hasAws ? await measureAws() : null });
        } else {
          const awsInc = await measureAws();
          incremental.push({ sink: await measureSink(lastDocs), aws: awsInc });
        }
        const last = incremental.at(-1)!;
        listings.push(await measureListing());
        progress(`S3 sink, round ${i + 1}`, last.sink);
        progress(`  listing the bucket (what a listing round adds)`, listings.at(-1)!);
        if (last.aws) progress(`aws s3 sync, round ${i + 1}`, last.aws);
      }
      const sinkInc = incremental.map((r) => r.sink);
      const awsInc = incremental.flatMap((r) => (r.aws ? [r.aws] : []));
      const ratios = incremental.flatMap((r) => (r.aws ? [r.aws.ms / r.sink.ms] : []));
      const listingRoundRatios = incremental.flatMap((r, i) =>
        r.aws ? [r.aws.ms / (r.sink.ms + listings[i]!.ms)] : [],
      );
      const cycleRatios = incremental.flatMap((r, i) =>
        r.aws ? [r.aws.ms / (r.sink.ms + listings[i]!.ms / DEFAULT_LIST_EVERY)] : [],
      );
      const mid = (xs: Measured[]) => [...xs].sort((x, y) => x.ms - y.ms)[Math.floor((xs.length - 1) / 2)]!;

      const result: PublishResult = {
        events: n,
        objects: docs1.length,
        sink: { cold: sinkCold, incremental: sinkInc },
        aws: awsCold ? { cold: awsCold, incremental: awsInc } : null,
        incrementalRatios: ratios,
        listings,
        listingRoundRatios,
        cycleRatios,
        awsStartMs: hasAws ? await awsStartup() : null,
      };
      const req = (m: Measured) =>
        Object.entries(m.requests)
          .sort()
          .map(([k, v]) => `${k} ${v}`)
          .join(', ');
      const rows = [
        ['S3 sink, cold', fmtMs(sinkCold.ms), sinkCold.uploaded, req(sinkCold)],
        ...(awsCold ? [['aws s3 sync, cold', fmtMs(awsCold.ms), awsCold.uploaded, req(awsCold)]] : []),
        [
          `S3 sink, one new event (median of ${sinkInc.length})`,
          `${fmtMs(median(sinkInc.map((m) => m.ms)))} (${sinkInc.map((m) => fmtMs(m.ms)).join(', ')})`,
          mid(sinkInc).uploaded,
          req(mid(sinkInc)),
        ],
        ...(awsInc.length
          ? [
              [
                `aws s3 sync, one new event (median of ${awsInc.length})`,
                `${fmtMs(median(awsInc.map((m) => m.ms)))} (${awsInc.map((m) => fmtMs(m.ms)).join(', ')})`,
                mid(awsInc).uploaded,
                req(mid(awsInc)),
              ],
            ]
          : []),
      ];
      const r = median(ratios);
      const verdict =
        awsCold && ratios.length
          ? [
              `Cold: sink ${fmtMs(sinkCold.ms)} vs aws ${fmtMs(awsCold.ms)} = ${(awsCold.ms / sinkCold.ms).toFixed(2)}x -> target >= ${COLD_TARGET_SPEEDUP}x: ${awsCold.ms / sinkCold.ms >= COLD_TARGET_SPEEDUP ? 'met' : 'MISSED'}`,
              `Incremental: per-round ratios ${ratios.map((x) => `${x.toFixed(1)}x`).join(', ')}; median ${r.toFixed(1)}x faster -> target >= ${INCREMENTAL_TARGET_SPEEDUP}x: ${r >= INCREMENTAL_TARGET_SPEEDUP ? 'met' : 'MISSED'}; uploads only changed objects: ${sinkInc.map((m) => m.uploaded).join('/')} of ${lastDocs.length}`,
              `Listing the bucket (a listing round, one in ${DEFAULT_LIST_EVERY}): median ${fmtMs(median(listings.map((m) => m.ms)))} (${listings.map((m) => fmtMs(m.ms)).join(', ')}), ${req(listings[0]!)}; a listing round vs aws: ${listingRoundRatios.map((x) => `${x.toFixed(1)}x`).join(', ')}, median ${median(listingRoundRatios).toFixed(1)}x; over a ${DEFAULT_LIST_EVERY}-round cycle: median ${median(cycleRatios).toFixed(1)}x`,
              `aws CLI start-up alone (aws --version, median of 3): ${fmtMs(result.awsStartMs ?? 0)}`,
            ].join('\n')
          : 'awscli is not installed: the aws s3 sync comparison was skipped.';
      const report = [
        `### Publishing ${n.toLocaleString('en')} events (${docs1.length.toLocaleString('en')} objects) to radosgw on loopback (cold: one shot each; incremental: ${rounds} alternating rounds; requests counted at a proxy both go through)`,
        '',
        table(['publisher', 'wall', 'objects uploaded', 'requests by method'], rows),
        '',
        verdict,
      ].join('\n');
      return { result, report };
    } finally {
      await proxy.close();
    }
  } finally {
    if (ownRgw) await runChild('bash', ['scripts/rgw.sh', 'stop', ownRgw]);
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = benchArgs();
  const n = Number(args.rest[0]);
  const { result, report } = await benchPublish({
    quick: args.quick,
    ...(Number.isInteger(n) && n > 0 ? { events: n } : {}),
  });
  console.log(report);
  console.log(`\n(raw: ${await saveResults('publish', result)})`);
}
