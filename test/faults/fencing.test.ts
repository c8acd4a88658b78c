// Fencing on the real radosgw: a run that stalls past its lock's lease while a newer run completes must stop with
// ConflictError before it writes anything, leaving the newer state and documents untouched. Two places to stall:
// in the fetch (before saving state) and between saving state and publishing (held by a proxy in front of radosgw).
// A third run, older by as-of time than the state, refuses to build on it.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConflictError } from '../../builder/errors.ts';
import { run, type RunSummary } from '../../builder/run.ts';
import { createS3Targets } from '../../builder/s3-targets.ts';
import { DEFAULT_LOCK_KEY, DEFAULT_MANIFEST_KEY, DEFAULT_STATE_KEY } from '../../builder/s3/config.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { DATA_DIR, startLoopback, type LoopbackServer } from '../helpers/build.ts';
import { startS3Proxy, type S3Proxy } from '../helpers/s3-proxy.ts';
import { createTestBucket, createTestClient, describeS3, removeTestBucket, S3_ENDPOINT } from '../s3/helpers.ts';
import { fixture } from '../sources/helpers.ts';

const T0_MS = Date.parse('2026-11-21T12:00:00Z');
const MINUTE_MS = 60_000;
const ACCESS_KEY = process.env.RESET_TEST_S3_ACCESS_KEY_ID ?? 'reset-test-access-key';
const SECRET_KEY = process.env.RESET_TEST_S3_SECRET_ACCESS_KEY ?? 'reset-test-secret-key';
const REGION = process.env.RESET_TEST_S3_REGION ?? 'us-east-1';

/** Everything a run can write: the state, the publish manifest and every public object, by ETag. */
async function snapshot(client: S3Client, bucket: string): Promise<{ objects: Record<string, string>; state: string }> {
  const objects: Record<string, string> = {};
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const o of page.Contents ?? []) if (o.Key && o.Key !== DEFAULT_LOCK_KEY) objects[o.Key] = o.ETag ?? '';
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const state = await (
    await client.send(new GetObjectCommand({ Bucket: bucket, Key: DEFAULT_STATE_KEY }))
  ).Body!.transformToString('utf8');
  return { objects, state };
}

describeS3('fencing: an overtaken run never writes', () => {
  let admin: S3Client;
  let bucket: string;
  let proxy: S3Proxy;
  let upstream: LoopbackServer;
  let dataDir: string;
  let sources: SourceConfig[];
  /** While set, the tracker holds every request until it is resolved; `held` resolves when one arrives. */
  let gate: Promise<void> | null = null;
  let held: () => void = () => {};

  const savedEnv: Record<string, string | undefined> = {};

  beforeAll(async () => {
    // The production client finds credentials through the SDK's default chain, i.e. these variables.
    for (const [k, v] of Object.entries({
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      AWS_REGION: REGION,
    })) {
      savedEnv[k] = process.env[k];
      process.env[k] = v;
    }
    dataDir = await mkdtemp(path.join(tmpdir(), 'rsa-fencing-'));
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
    bucket = await createTestBucket(admin, 'fencing');
    proxy = await startS3Proxy(S3_ENDPOINT);
    const tracker = fixture('tracker-page-2.json');
    upstream = await startLoopback((_req: IncomingMessage, res: ServerResponse) => {
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(tracker);
      };
      if (gate === null) return answer();
      held();
      void gate.then(answer);
    });
    sources = [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${upstream.url}/tracker` }];
  });

  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    if (bucket) await removeTestBucket(admin, bucket);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  /** One run with the production S3 wiring at `atMs`, straight to radosgw or through the proxy. */
  function runAt(atMs: number, endpoint = S3_ENDPOINT): Promise<RunSummary> {
    const now = () => new Date(atMs);
    const { store, sink } = createS3Targets(
      { RESET_S3_BUCKET: bucket, RESET_S3_ENDPOINT: endpoint, AWS_REGION: REGION },
      now,
    );
    return run({
      now,
      fetcher: createHttpFetcher({ timeoutMs: 60_000, retries: 0, deadline: Date.now() + 120_000 }),
      sources,
      store,
      sink,
      dataDir,
    });
  }

  it('a run stalled in its fetch past its lease, overtaken by a newer run, exits with ConflictError before saving state', async () => {
    expect((await runAt(T0_MS)).skipped).toBe(false);
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    const arrived = new Promise<void>((r) => (held = r));
    // A takes the lock (10-minute lease) at +15 min, then hangs on the tracker.
    const stalled = runAt(T0_MS + 15 * MINUTE_MS);
    stalled.catch(() => undefined);
    await arrived;
    gate = null;
    // B, at +30 min, finds A's lease expired, takes the lock over and completes.
    const newer = await runAt(T0_MS + 30 * MINUTE_MS);
    expect(newer.skipped).toBe(false);
    const before = await snapshot(admin, bucket);
    expect(JSON.parse(before.state).updated_at).toBe(new Date(T0_MS + 30 * MINUTE_MS).toISOString());
    release();
    const err = await stalled.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as Error).message).toMatch(/lost the run lock \(run \d+\) before saving state/);
    expect(await snapshot(admin, bucket)).toEqual(before);
  }, 120_000);

  it('a run stalled between saving state and publishing, overtaken, exits with ConflictError before publishing anything', async () => {
    // C saves its state at +45 min, then its first publish request (the manifest read) is held by the proxy.
    let frozen!: () => void;
    const isFrozen = new Promise<void>((r) => (frozen = r));
    proxy.onRequest = (r) => {
      if (r.method === 'GET' && r.key === DEFAULT_MANIFEST_KEY) {
        proxy.freeze();
        proxy.onRequest = null;
        frozen();
      }
    };
    const stalled = runAt(T0_MS + 45 * MINUTE_MS, proxy.url);
    stalled.catch(() => undefined);
    await isFrozen;
    expect(JSON.parse((await snapshot(admin, bucket)).state).updated_at).toBe(
      new Date(T0_MS + 45 * MINUTE_MS).toISOString(),
    );
    // D, at +60 min, takes the lock over, saves newer state and publishes.
    expect((await runAt(T0_MS + 60 * MINUTE_MS)).skipped).toBe(false);
    const before = await snapshot(admin, bucket);
    proxy.thaw();
    const err = await stalled.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as Error).message).toMatch(/lost the run lock \(run \d+\) before publish (phase \d|deletes)/);
    expect(await snapshot(admin, bucket)).toEqual(before);
  }, 120_000);

  it('a run older (by as-of time) than the stored state refuses to build on it, with the lock free', async () => {
    const before = await snapshot(admin, bucket);
    const err = await runAt(T0_MS + 50 * MINUTE_MS).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as Error).message).toMatch(/newer than this run/);
    expect(await snapshot(admin, bucket)).toEqual(before);
    // The refusing run released its lock: the next tick runs.
    expect((await runAt(T0_MS + 75 * MINUTE_MS)).skipped).toBe(false);
  }, 120_000);
});
