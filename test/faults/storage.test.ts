// Fault injection, storage: the production S3 wiring (createS3Targets, the SDK's own retries) publishing through a
// fault-injecting proxy on 127.0.0.1 in front of the real radosgw, tick after tick, beside a clean pipeline that
// runs the same ticks on the same sources straight to radosgw. Faults: 500 InternalError, 503 SlowDown, connections
// dropped before and after a request landed, a run process killed (SIGKILL) between the state write and the
// publish and another one mid-publish, a corrupt state object and a corrupt publish manifest.
//
// After a failed run the published API must still be whole (every document valid JSON, every event link resolving);
// after each tick's recovery the published API and the state must equal the clean pipeline's. The only field
// allowed to differ is a source check's `latency_ms`, a wall-clock measurement that no two runs share.
//
// The suite's properties, each pinned by a test that fails when the code providing it is removed, are in
// storage-properties.test.ts (old API readable during a half-finished publish; state never regresses; a failed run
// leaves nothing half-written) and fencing.test.ts (an overtaken run writes nothing). This file pins recovery:
// whatever fault hit a tick, the next good run converges on exactly what a clean pipeline published.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_LOCK_KEY, DEFAULT_MANIFEST_KEY, DEFAULT_STATE_KEY } from '../../builder/s3/config.ts';
import { createS3Targets } from '../../builder/s3-targets.ts';
import { requirePublicUrls } from '../../builder/public-url.ts';
import { run, type RunSummary } from '../../builder/run.ts';
import { sourceConfigsFromEnv } from '../../builder/sources/config.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { DATA_DIR, startLoopback, type LoopbackServer } from '../helpers/build.ts';
import { startS3Proxy, type FaultRule, type S3Proxy, type S3Request } from '../helpers/s3-proxy.ts';
import {
  createTestBucket,
  createTestClient,
  describeS3,
  removeTestBucket,
  S3_ENDPOINT,
  writeText,
} from '../s3/helpers.ts';
import { fixture } from '../sources/helpers.ts';

const T0_MS = Date.parse('2026-11-21T12:00:00Z');
const TICK_MS = 15 * 60_000;
const REPO_ROOT = new URL('../..', import.meta.url).pathname;
const ACCESS_KEY = process.env.RESET_TEST_S3_ACCESS_KEY_ID ?? 'reset-test-access-key';
const SECRET_KEY = process.env.RESET_TEST_S3_SECRET_ACCESS_KEY ?? 'reset-test-secret-key';
const REGION = process.env.RESET_TEST_S3_REGION ?? 'us-east-1';
const LEDGER_RECORDS = 4;
const limit = pLimit(8);

const isPublicPut = (r: S3Request) => r.method === 'PUT' && r.key.startsWith('api/');
const isStatePut = (r: S3Request) => r.method === 'PUT' && r.key === DEFAULT_STATE_KEY;
const isManifestGet = (r: S3Request) => r.method === 'GET' && r.key === DEFAULT_MANIFEST_KEY;
const isList = (r: S3Request) => r.method === 'GET' && r.key === '' && r.hasQuery;

type Outcome = 'absorbed' | 'failed_then_recovered' | 'killed_then_recovered' | 'carried_on';

interface Step {
  tick: number;
  what: string;
  /** Faults armed on the proxy for this tick's first run. */
  rules?: FaultRule[];
  /** Run the faulty pipeline's tick in a child process, SIGKILLed when `killAt` first matches a request. */
  killAt?: { label: string; match: (r: S3Request, seen: number) => boolean };
  /** Done to the faulty bucket before the tick. */
  before?: { label: string; key: string; body: string };
  expect: Outcome;
}

const rule = (label: string, fault: FaultRule['fault'], match: (r: S3Request) => boolean, times = 1): FaultRule => ({
  label,
  fault,
  match,
  times,
});

// The SDK makes 3 attempts per request: a fault on one attempt is absorbed, on 3 in a row the run fails. A
// persistent fault lasts until the failed run ends (it is disarmed before the recovery run).
const PERSISTENT = 1_000_000;
const PLAN: Step[] = [
  { tick: 0, what: 'cold publish, no fault', expect: 'absorbed' },
  {
    tick: 1,
    what: '500 and 503 on single attempts',
    rules: [
      rule('500 InternalError on a public PUT', 'internal_error', isPublicPut, 2),
      rule('503 SlowDown on a public PUT', 'slow_down', isPublicPut, 2),
      rule('500 InternalError on the state PUT', 'internal_error', isStatePut),
      rule('503 SlowDown on the listing', 'slow_down', isList),
    ],
    expect: 'absorbed',
  },
  {
    tick: 2,
    what: '503 SlowDown that outlasts the retries, mid-publish',
    rules: [rule('503 SlowDown on every attempt of public PUTs', 'slow_down', isPublicPut, PERSISTENT)],
    expect: 'failed_then_recovered',
  },
  {
    tick: 3,
    what: 'dropped connections (a new reset appears upstream)',
    rules: [
      rule('connection dropped before a public PUT landed', 'drop_request', isPublicPut, 3),
      rule('connection dropped after a public PUT landed', 'drop_response', isPublicPut, 2),
      rule('connection dropped after the state PUT landed', 'drop_response', isStatePut),
    ],
    expect: 'absorbed',
  },
  {
    tick: 4,
    what: 'dropped connections that outlast the retries, mid-publish',
    rules: [rule('connection dropped before every attempt of public PUTs', 'drop_request', isPublicPut, PERSISTENT)],
    expect: 'failed_then_recovered',
  },
  {
    tick: 5,
    what: 'manifest answer cut off mid-body',
    rules: [rule('manifest GET body cut off halfway', 'drop_response', isManifestGet)],
    expect: 'failed_then_recovered',
  },
  {
    tick: 6,
    what: 'run killed between the state write and the publish',
    killAt: { label: 'SIGKILL at the first publish request', match: isManifestGet },
    expect: 'killed_then_recovered',
  },
  {
    tick: 8,
    what: 'run killed mid-publish',
    killAt: { label: 'SIGKILL at the 10th public PUT', match: (r, seen) => isPublicPut(r) && seen >= 10 },
    expect: 'killed_then_recovered',
  },
  {
    tick: 10,
    what: 'corrupt state object',
    before: {
      label: 'state object overwritten with garbage',
      key: DEFAULT_STATE_KEY,
      body: '{"schema_version": 1, "checks": [',
    },
    expect: 'carried_on',
  },
  {
    tick: 11,
    what: 'corrupt publish manifest',
    before: { label: 'publish manifest overwritten with garbage', key: DEFAULT_MANIFEST_KEY, body: 'not json' },
    expect: 'carried_on',
  },
  { tick: 12, what: 'a clean tick after everything', expect: 'absorbed' },
];

/** The upstream tracker's records at a tick: a new reset appears at tick 3. */
function trackerBody(tick: number): string {
  const page = JSON.parse(fixture('tracker-page-1.json')) as { data: Record<string, unknown>[] };
  const fresh = {
    id: 'rst_2026-11-21_storage',
    reset_type: 'regular',
    announced_at: new Date(T0_MS + 2 * TICK_MS + 5 * 60_000).toISOString(),
    text: 'We reset Codex usage limits for everyone.',
    source: { type: 'x_post', author: 'example_dev', url: 'https://x.com/example_dev/status/1990000000000000099' },
  };
  const data = tick >= 3 ? [fresh, ...page.data] : page.data;
  return JSON.stringify({
    data,
    pagination: { has_more: false, next_cursor: null },
    meta: { api_version: '1', generated_at: new Date(0).toISOString() },
  });
}

interface Obj {
  body: string;
  contentType: string | undefined;
  contentLanguage: string | undefined;
  cacheControl: string | undefined;
}

async function listEtags(client: S3Client, bucket: string, prefix: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const o of page.Contents ?? []) if (o.Key) out.set(o.Key, o.ETag ?? '');
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}

async function getObj(client: S3Client, bucket: string, key: string): Promise<Obj> {
  const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return {
    body: (await r.Body?.transformToString('utf8')) ?? '',
    contentType: r.ContentType,
    contentLanguage: r.ContentLanguage,
    cacheControl: r.CacheControl,
  };
}

/** The JSON with every `latency_ms` set to null: the one field two honest runs never share (plain text as it is). */
const normalized = (body: string) =>
  /^[[{]/.test(body) ? JSON.stringify(JSON.parse(body, (k, v: unknown) => (k === 'latency_ms' ? null : v))) : body;

describeS3('storage faults: S3 errors, dropped connections, killed runs, corrupt objects', () => {
  let admin: S3Client;
  let cleanBucket: string;
  let faultyBucket: string;
  let proxy: S3Proxy;
  let upstream: LoopbackServer;
  let tick = 0;
  let cleanDone = -1;
  let dataDir: string;
  let sources: SourceConfig[];
  const savedEnv: Record<string, string | undefined> = {};

  const targetEnv = (bucket: string, endpoint: string): Record<string, string> => ({
    RESET_S3_BUCKET: bucket,
    RESET_S3_ENDPOINT: endpoint,
    // Every publish lists the bucket, so the faults on the listing are exercised on every tick.
    RESET_S3_LIST_EVERY: '1',
    // A publishing build refuses to run without its https public URL (builder/public-url.ts).
    RESET_PUBLIC_BASE_URL: 'https://api.example.test',
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: ACCESS_KEY,
    AWS_SECRET_ACCESS_KEY: SECRET_KEY,
  });

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
    // A small slice of the real ledger keeps each publish to about a hundred objects.
    dataDir = await mkdtemp(path.join(tmpdir(), 'rsa-faults-storage-'));
    const ledger = JSON.parse(await readFile(path.join(DATA_DIR, 'archive', 'codex-reset-ledger.json'), 'utf8')) as {
      archive: unknown;
      records: unknown[];
    };
    for (const d of ['archive', 'verified', 'reviews']) await mkdir(path.join(dataDir, d), { recursive: true });
    await writeFile(
      path.join(dataDir, 'archive', 'codex-reset-ledger.json'),
      JSON.stringify({ archive: ledger.archive, records: ledger.records.slice(-LEDGER_RECORDS) }),
    );
    admin = createTestClient();
    cleanBucket = await createTestBucket(admin, 'clean');
    faultyBucket = await createTestBucket(admin, 'faulty');
    proxy = await startS3Proxy(S3_ENDPOINT);
    const status = fixture('statuspage-incidentio-summary.json');
    const feed = fixture('feed-rss.xml');
    upstream = await startLoopback((req: IncomingMessage, res: ServerResponse) => {
      const kind = (req.url ?? '').split('?')[0];
      if (kind === '/tracker') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(trackerBody(tick));
      }
      if (kind === '/status') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(status);
      }
      res.writeHead(200, { 'content-type': 'application/rss+xml' });
      res.end(feed);
    });
    // The order sourceConfigsFromEnv gives, so in-process runs and the killed child record checks alike.
    sources = sourceConfigsFromEnv(sourceEnv());
  });

  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    if (cleanBucket) await removeTestBucket(admin, cleanBucket);
    if (faultyBucket) await removeTestBucket(admin, faultyBucket);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const sourceEnv = () => ({
    RESET_UPSTREAM_URL: `${upstream.url}/tracker`,
    RESET_TIMELINE_URL: '',
    RESET_POST_EMBED_URL: '',
    RESET_STATUS_PAGE_URL: `${upstream.url}/status`,
    RESET_SIGNAL_FEEDS: `${upstream.url}/feed`,
  });

  /** One run in this process with the production S3 wiring, as the scheduled refresh makes it. */
  function runInProcess(bucket: string, endpoint: string, atMs: number): Promise<RunSummary> {
    const now = () => new Date(atMs);
    const env = targetEnv(bucket, endpoint);
    const { store, sink } = createS3Targets(env, now);
    // The same public URLs the child process (builder/main.ts) derives, so both pipelines publish the same bytes.
    return run({
      now,
      fetcher: createHttpFetcher({ timeoutMs: 2_000, retries: 0 }),
      sources,
      store,
      sink,
      dataDir,
      urls: requirePublicUrls(env, 's3'),
    });
  }

  /** The clean pipeline catches up to tick `upTo`, one run per tick, each seeing that tick's upstream. */
  async function cleanUpTo(upTo: number): Promise<void> {
    for (let t = cleanDone + 1; t <= upTo; t++) {
      tick = t;
      const clean = await runInProcess(cleanBucket, S3_ENDPOINT, T0_MS + t * TICK_MS);
      expect(clean.skipped).toBe(false);
      cleanDone = t;
    }
  }

  /** One run as its own process (`builder/main.ts --target s3`) through the proxy, SIGKILLed at the kill point. */
  async function runKilledChild(
    atMs: number,
    killAt: NonNullable<Step['killAt']>,
  ): Promise<{ killedBy: string | null; publicPutsBeforeKill: number }> {
    let seen = 0;
    let publicPuts = 0;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'builder/main.ts',
        '--target',
        's3',
        '--now',
        new Date(atMs).toISOString(),
        '--data-dir',
        dataDir,
      ],
      {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          ...targetEnv(faultyBucket, proxy.url),
          ...sourceEnv(),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    proxy.onRequest = (r) => {
      if (isPublicPut(r)) seen++;
      if (killAt.match(r, seen)) {
        publicPuts = isPublicPut(r) ? seen - 1 : seen;
        proxy.freeze();
        child.kill('SIGKILL');
        proxy.onRequest = null;
      }
    };
    const { signal } = await exited;
    proxy.onRequest = null;
    proxy.thaw();
    if (signal !== 'SIGKILL') throw new Error(`the child was meant to be killed but exited by itself:\n${output}`);
    return { killedBy: signal, publicPutsBeforeKill: publicPuts };
  }

  /** The faulty bucket's API is whole: every document parses, and every event link points at an object. */
  async function expectWholeApi(): Promise<number> {
    const keys = [...(await listEtags(admin, faultyBucket, 'api/')).keys()];
    const present = new Set(keys);
    const links: string[] = [];
    const bodies = await Promise.all(
      keys.map((key) => limit(async () => ({ key, body: (await getObj(admin, faultyBucket, key)).body }))),
    );
    for (const { key, body } of bodies) {
      if (!key.endsWith('.json')) continue; // api/license.txt is plain text
      JSON.parse(body, (_k, v: unknown) => {
        const m = typeof v === 'string' ? /^\/api\/events\/([^?]+)\?lang=([a-z]{2})$/.exec(v) : null;
        if (m) {
          links.push(v as string);
          expect(present.has(`api/${m[2]}/events/${m[1]}.json`), `${key} links to ${v}`).toBe(true);
        }
        return v;
      });
    }
    return links.length;
  }

  /** The faulty pipeline's API and state equal the clean one's: bodies by ETag, then by content, and headers. */
  async function expectSameAsClean(withHeaders: boolean): Promise<{ objects: number; differingEtags: number }> {
    const [clean, faulty] = await Promise.all([
      listEtags(admin, cleanBucket, 'api/'),
      listEtags(admin, faultyBucket, 'api/'),
    ]);
    expect([...faulty.keys()].sort()).toEqual([...clean.keys()].sort());
    const toRead = [...clean].filter(([key, etag]) => withHeaders || faulty.get(key) !== etag).map(([key]) => key);
    const pairs = await Promise.all(
      toRead.map((key) =>
        limit(async () => ({
          key,
          a: await getObj(admin, cleanBucket, key),
          b: await getObj(admin, faultyBucket, key),
        })),
      ),
    );
    for (const { key, a, b } of pairs)
      expect({ ...b, body: normalized(b.body) }, key).toEqual({ ...a, body: normalized(a.body) });
    const [sa, sb] = await Promise.all([
      getObj(admin, cleanBucket, DEFAULT_STATE_KEY),
      getObj(admin, faultyBucket, DEFAULT_STATE_KEY),
    ]);
    expect(normalized(sb.body)).toBe(normalized(sa.body));
    return { objects: clean.size, differingEtags: [...clean].filter(([key, etag]) => faulty.get(key) !== etag).length };
  }

  it('survives every storage fault and, after recovery, publishes exactly what a clean run publishes', async () => {
    const rows: Record<string, string | number>[] = [];
    let recoveries = 0;
    for (const step of PLAN) {
      tick = step.tick;
      const at = T0_MS + step.tick * TICK_MS;
      // The clean pipeline runs every tick, including the ones the faulty pipeline only recovers at.
      await cleanUpTo(step.tick);
      tick = step.tick;
      if (step.before) await writeText(admin, faultyBucket, step.before.key, step.before.body);
      const injectedBefore = proxy.injections.length;
      const stepStarted = performance.now();
      proxy.arm(...(step.rules ?? []));

      let outcome: Outcome;
      let detail: string;
      if (step.killAt) {
        const killed = await runKilledChild(at, step.killAt);
        const links = await expectWholeApi();
        detail = `${step.killAt.label}; ${killed.publicPutsBeforeKill} public PUTs had gone through; API whole (${links} links); lock left behind`;
        // The next scheduled tick finds the dead run's lock expired (10 min TTL), takes it over and catches up.
        expect((await getObj(admin, faultyBucket, DEFAULT_LOCK_KEY)).body).toMatch(/"owner":"run-/);
        const nextTick = step.tick + 1;
        await cleanUpTo(nextTick);
        tick = nextTick;
        const recovered = await runInProcess(faultyBucket, proxy.url, T0_MS + nextTick * TICK_MS);
        expect(recovered.skipped).toBe(false);
        recoveries++;
        outcome = 'killed_then_recovered';
      } else {
        let first: RunSummary | null = null;
        let error: Error | null = null;
        try {
          first = await runInProcess(faultyBucket, proxy.url, at);
        } catch (err) {
          error = err as Error;
        }
        const left = proxy.disarm();
        if (error !== null) {
          // Failed loudly, with the storage error named, and left the previous API whole.
          expect(error.message).toMatch(/\[publish\/s3\] (PUT|GET) s3:\/\/reset-faulty-[0-9a-f]+\/\S+ -> /);
          const links = await expectWholeApi();
          detail = `${error.message
            .split('\n')[0]!
            .replace(/s3:\/\/reset-faulty-[0-9a-f]+/, 's3://…')
            .slice(0, 110)}; API whole (${links} links)`;
          // The scheduler's next attempt, at the same tick.
          const recovered = await runInProcess(faultyBucket, proxy.url, at);
          expect(recovered.skipped).toBe(false);
          recoveries++;
          outcome = 'failed_then_recovered';
        } else {
          expect(left, `every armed fault of tick ${step.tick} was injected`).toEqual([]);
          expect(first!.skipped).toBe(false);
          outcome = first!.warnings.length > 0 || step.before ? 'carried_on' : 'absorbed';
          detail =
            first!.warnings.length > 0
              ? first!.warnings
                  .join(' / ')
                  .replace(/s3:\/\/reset-faulty-[0-9a-f]+/g, 's3://…')
                  .slice(0, 160)
              : `run ok, ${first!.published!.written} objects written`;
          if (step.before?.key === DEFAULT_STATE_KEY)
            expect(first!.warnings.join('\n')).toMatch(/unusable.*carried on from the last good copy/);
          // A corrupt manifest is recovered from a listing: what is in place (its ETag the body's MD5) is not uploaded again.
          if (step.before?.key === DEFAULT_MANIFEST_KEY) expect(first!.published!.unchanged).toBeGreaterThan(0);
        }
      }
      expect(outcome, step.what).toBe(step.expect);
      const last = step === PLAN[PLAN.length - 1];
      const same = await expectSameAsClean(last);
      const injected = proxy.injections.slice(injectedBefore);
      rows.push({
        tick: `+${(step.killAt ? step.tick + 1 : step.tick) * 15} min`,
        fault:
          step.before?.label ??
          step.killAt?.label ??
          (injected.length ? [...new Set(injected.map((i) => i.label))].join('; ') : 'none'),
        injected: step.killAt || step.before ? 1 : injected.length,
        outcome,
        detail,
        seconds: ((performance.now() - stepStarted) / 1000).toFixed(1),
        equal_to_clean: `yes (${same.objects} objects${same.differingEtags ? `, ${same.differingEtags} differ only in latency_ms` : ''})`,
      });
    }
    console.log(
      `storage faults: ${rows.reduce((n, r) => n + Number(r.injected), 0)} injected over ${PLAN.length} ticks, ${recoveries} recovery runs`,
    );
    console.log(
      [
        '| tick | fault | injected | outcome | seconds | equal to clean | detail |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        ...rows.map(
          (r) => `| ${[r.tick, r.fault, r.injected, r.outcome, r.seconds, r.equal_to_clean, r.detail].join(' | ')} |`,
        ),
      ].join('\n'),
    );
    // Every fault kind of the issue was injected at least once.
    const kinds = new Set(proxy.injections.map((i) => i.fault));
    expect([...kinds].sort()).toEqual(['drop_request', 'drop_response', 'internal_error', 'slow_down']);
  }, 600_000);
});
