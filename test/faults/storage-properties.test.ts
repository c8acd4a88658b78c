// The storage fault suite's properties, one test each, on the real radosgw behind the fault-injecting proxy. Each
// test fails when the code that provides its property is removed (checked once by hand; docs/testing.md, "Storage
// properties and fencing", has the results):
//  1. The old API stays readable during a half-finished publish: a publish that fails part way never leaves a
//     summary or list pointing at a document it did not write, and the old summaries stay as they were.
//     Provided by the sink's phase ordering (s3-sink.ts uploadInPhases: a phase starts only when the one below landed).
//  2. State never regresses: a run older by as-of time than the stored state refuses to build on it.
//     Provided by run.ts assertNotOlderThan (and, for overtaken runs, the lock fencing of fencing.test.ts).
//  3. A failed run leaves nothing half-written: every object is whole (its bytes hash to the sha256 it was written
//     with), and the publish manifest is not advanced past what landed. Provided by the sink writing its manifest
//     only after every phase landed (uploadInPhases throws on the first failure, before the manifest PUT).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, StorageError } from '../../builder/errors.ts';
import { run, type RunSummary } from '../../builder/run.ts';
import { createS3Targets } from '../../builder/s3-targets.ts';
import { DEFAULT_LOCK_KEY, DEFAULT_MANIFEST_KEY, DEFAULT_STATE_KEY } from '../../builder/s3/config.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { DATA_DIR, startLoopback, type LoopbackServer } from '../helpers/build.ts';
import { startS3Proxy, type S3Proxy, type S3Request } from '../helpers/s3-proxy.ts';
import { createTestBucket, createTestClient, describeS3, removeTestBucket, S3_ENDPOINT } from '../s3/helpers.ts';
import { fixture } from '../sources/helpers.ts';

const T0_MS = Date.parse('2026-11-21T12:00:00Z');
const TICK_MS = 15 * 60_000;
const ACCESS_KEY = process.env.RESET_TEST_S3_ACCESS_KEY_ID ?? 'reset-test-access-key';
const SECRET_KEY = process.env.RESET_TEST_S3_SECRET_ACCESS_KEY ?? 'reset-test-secret-key';
const REGION = process.env.RESET_TEST_S3_REGION ?? 'us-east-1';
const NEW_RESET_ID = 'rst_2026-11-21_props';
const PERSISTENT = 1_000_000;

interface Obj {
  body: string;
  etag: string;
  sha256: string | undefined;
}

const limit = pLimit(8);

/** Every object but the lock, read whole: body, ETag and the sha256 it was written with. */
async function readAll(client: S3Client, bucket: string): Promise<Map<string, Obj>> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const o of page.Contents ?? []) if (o.Key && o.Key !== DEFAULT_LOCK_KEY) keys.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const read = await Promise.all(
    keys.map((key) =>
      limit(async () => {
        const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return [
          key,
          { body: (await r.Body?.transformToString('utf8')) ?? '', etag: r.ETag ?? '', sha256: r.Metadata?.sha256 },
        ] as const;
      }),
    ),
  );
  return new Map(read);
}

/** Every `/api/events/<id>?lang=<l>` link in any public document points at an object that exists. */
function danglingLinks(objects: Map<string, Obj>): string[] {
  const dangling: string[] = [];
  for (const [key, o] of objects) {
    if (!key.startsWith('api/') || !key.endsWith('.json')) continue;
    JSON.parse(o.body, (_k, v: unknown) => {
      const m = typeof v === 'string' ? /^\/api\/events\/([^?]+)\?lang=([a-z]{2})$/.exec(v) : null;
      if (m && !objects.has(`api/${m[2]}/events/${m[1]}.json`)) dangling.push(`${key} -> ${v as string}`);
      return v;
    });
  }
  return dangling;
}

describeS3('storage properties', () => {
  let admin: S3Client;
  let proxy: S3Proxy;
  let upstream: LoopbackServer;
  let dataDir: string;
  let sources: SourceConfig[];
  let withNewReset = false;
  const buckets: string[] = [];
  const savedEnv: Record<string, string | undefined> = {};

  beforeAll(async () => {
    for (const [k, v] of Object.entries({
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      AWS_REGION: REGION,
    })) {
      savedEnv[k] = process.env[k];
      process.env[k] = v;
    }
    dataDir = await mkdtemp(path.join(tmpdir(), 'rsa-storage-props-'));
    const ledger = JSON.parse(await readFile(path.join(DATA_DIR, 'archive', 'codex-reset-ledger.json'), 'utf8')) as {
      archive: unknown;
      records: unknown[];
    };
    for (const d of ['archive', 'verified', 'reviews']) await mkdir(path.join(dataDir, d), { recursive: true });
    await writeFile(
      path.join(dataDir, 'archive', 'codex-reset-ledger.json'),
      JSON.stringify({ archive: ledger.archive, records: ledger.records.slice(-4) }),
    );
    admin = createTestClient();
    proxy = await startS3Proxy(S3_ENDPOINT);
    const page = JSON.parse(fixture('tracker-page-1.json')) as { data: Record<string, unknown>[] };
    const fresh = {
      id: NEW_RESET_ID,
      reset_type: 'regular',
      announced_at: new Date(T0_MS + 5 * 60_000).toISOString(),
      text: 'We reset Codex usage limits for everyone.',
      source: { type: 'x_post', author: 'example_dev', url: 'https://x.com/example_dev/status/1990000000000000077' },
    };
    upstream = await startLoopback((_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          data: withNewReset ? [fresh, ...page.data] : page.data,
          pagination: { has_more: false, next_cursor: null },
        }),
      );
    });
    sources = [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${upstream.url}/tracker` }];
  });

  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    for (const b of buckets) await removeTestBucket(admin, b);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  async function freshBucket(label: string): Promise<string> {
    const b = await createTestBucket(admin, label);
    buckets.push(b);
    return b;
  }

  function runAt(bucket: string, tick: number, endpoint = S3_ENDPOINT): Promise<RunSummary> {
    const now = () => new Date(T0_MS + tick * TICK_MS);
    const { store, sink } = createS3Targets(
      { RESET_S3_BUCKET: bucket, RESET_S3_ENDPOINT: endpoint, AWS_REGION: REGION, RESET_S3_LIST_EVERY: '1' },
      now,
    );
    return run({ now, fetcher: createHttpFetcher({ timeoutMs: 5_000, retries: 0 }), sources, store, sink, dataDir });
  }

  /** Publishes tick 0, then runs tick 1 (a new reset upstream) through the proxy with `fail` refusing every attempt. */
  async function failedPublish(label: string, fail: (r: S3Request) => boolean) {
    const bucket = await freshBucket(label);
    withNewReset = false;
    expect((await runAt(bucket, 0)).skipped).toBe(false);
    const before = await readAll(admin, bucket);
    withNewReset = true;
    proxy.arm({ label, fault: 'slow_down', match: fail, times: PERSISTENT });
    const err = await runAt(bucket, 1, proxy.url).then(
      () => null,
      (e: unknown) => e,
    );
    proxy.disarm();
    expect(err).toBeInstanceOf(StorageError);
    return { bucket, before, after: await readAll(admin, bucket) };
  }

  describe('1. the old API stays readable during a half-finished publish', () => {
    it('a publish whose new event documents fail leaves no summary pointing at them, and the old summaries in place', async () => {
      const isNewEventPut = (r: S3Request) => r.method === 'PUT' && r.key.includes(`/events/sr-${NEW_RESET_ID}`);
      const { before, after } = await failedPublish('props-order', isNewEventPut);
      expect(danglingLinks(after)).toEqual([]);
      for (const [key, o] of before) {
        if (/^api\/[a-z]{2}\/(latest|status|history|forecast|signals|accuracy)\.json$/.test(key))
          expect(after.get(key)?.etag, key).toBe(o.etag);
      }
    }, 120_000);
  });

  describe('2. state never regresses', () => {
    it('a run older by as-of time than the stored state refuses with ConflictError and leaves the state as it was', async () => {
      const bucket = await freshBucket('props-regress');
      withNewReset = false;
      expect((await runAt(bucket, 2)).skipped).toBe(false);
      const before = await readAll(admin, bucket);
      const err = await runAt(bucket, 1).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConflictError);
      const after = await readAll(admin, bucket);
      expect(after.get(DEFAULT_STATE_KEY)?.etag).toBe(before.get(DEFAULT_STATE_KEY)?.etag);
      expect(JSON.parse(after.get(DEFAULT_STATE_KEY)!.body).updated_at).toBe(
        new Date(T0_MS + 2 * TICK_MS).toISOString(),
      );
    }, 120_000);
  });

  describe('3. a failed run leaves nothing half-written', () => {
    it('after a publish that fails in its summaries, every object is whole and the manifest is not advanced', async () => {
      const isSummaryPut = (r: S3Request) => r.method === 'PUT' && /^api\/[a-z]{2}\/(latest|status)\.json$/.test(r.key);
      const { before, after } = await failedPublish('props-whole', isSummaryPut);
      for (const [key, o] of after) {
        if (!key.startsWith('api/')) continue;
        if (key.endsWith('.json')) expect(() => JSON.parse(o.body), key).not.toThrow();
        expect(createHash('sha256').update(o.body).digest('hex'), key).toBe(o.sha256);
      }
      expect(after.get(DEFAULT_MANIFEST_KEY)?.etag).toBe(before.get(DEFAULT_MANIFEST_KEY)?.etag);
    }, 120_000);
  });
});
