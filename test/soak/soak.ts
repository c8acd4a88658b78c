// The soak: many ticks of simulated 15-minute time through the real pipeline (`run(deps)` with the
// production S3 store and sink, the real HTTP fetcher and notifier) against loopback sources that flap, stall, flood
// and lie, and against radosgw behind the fault proxy (5xx, dropped connections, stalled requests, a run process
// SIGKILLed mid-publish, an overlapping run process). After every tick it checks the invariants below on what a
// client would get, and counts every violation instead of stopping, so one report shows what holds and what does not.
//
// Ticks run in this process (a child process per tick costs over a second on a shared 2-core machine); only the
// killed and the overlapping runs are child processes (`builder/main.ts --target s3`), as in production.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { EDGE_FRESHNESS_KEY, LANGS } from '../../builder/contract.ts';
import { parseFreshness, route } from '../../builder/edge/route.ts';
import { parseChannel, type Channel } from '../../builder/notify/channels.ts';
import { NOTIFY_MAX_PER_RUN } from '../../builder/notify/plan.ts';
import { MAX_TRACKER_EVENTS } from '../../builder/model/apply.ts';
import { createNotifier } from '../../builder/notify/send.ts';
import { seededRandom } from '../../builder/model/accuracy.ts';
import { createLocalEdgeStore } from '../../builder/publish/edge-store.ts';
import { run, type RunSummary } from '../../builder/run.ts';
import { DEFAULT_LOCK_KEY, DEFAULT_MANIFEST_KEY, DEFAULT_STATE_KEY } from '../../builder/s3/config.ts';
import { createS3Targets } from '../../builder/s3-targets.ts';
import { sourceConfigsFromEnv } from '../../builder/sources/config.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { DATA_DIR } from '../helpers/build.ts';
import { startS3Proxy, type FaultRule, type S3Proxy, type S3Request } from '../helpers/s3-proxy.ts';
import { createTestBucket, createTestClient, listAllKeys, readText, removeTestBucket } from '../s3/helpers.ts';
import {
  computeWorldResets,
  startReceiver,
  startSourceWorld,
  type Receiver,
  type ReceiverMode,
  type SourceModes,
  type SourceWorld,
} from './world.ts';

export const SOAK_T0 = '2026-11-21T00:00:00Z';
export const TICK_MS = 15 * 60_000;

// ---- Documented bounds (BENCHMARKS.md, "Soak") -------------------------------------------------------------------
/**
 * The state object (`state/state.json`) never grows past this: at most MAX_TRACKER_EVENTS tracker events (about 1 KiB
 * each as stored), MAX_SIGNALS signals, the notification log of the deliveries still due and the forecast log.
 */
export const MAX_STATE_BYTES = 4 * 1024 * 1024;
/** Curated events (data/: the ledger and verified records) the object bound allows for; the repository holds 58. */
const CURATED_EVENTS_ALLOWANCE = 100;
/** Objects that are not one event in one language: live, stable and follow documents, pages, unknown variants, schemas. */
const FIXED_OBJECTS_ALLOWANCE = 1_000;
/** Everything under `api/` in the bucket, objects dropped from a build included until they are deleted (1 hour). */
export const MAX_DIST_OBJECTS =
  LANGS.length * (MAX_TRACKER_EVENTS + CURATED_EVENTS_ALLOWANCE) + FIXED_OBJECTS_ALLOWANCE;
/** About 39 KiB per event over its five event documents and the histories that list it (measured on synthetic builds). */
export const MAX_DIST_BYTES = 128 * 1024 * 1024;
/** Messages one run may send to one channel (the product's own constant), and the one digest past them. */
export const MESSAGES_PER_RUN_CAP = NOTIFY_MAX_PER_RUN;
export const DIGESTS_PER_RUN = 1;
/** `reset: false` needs a good check at most this old at the instant a client reads it. */
export const FRESH_CHECK_MS = 30 * 60_000;
/**
 * Past these the soak stops early: a pipeline without its protections grows by thousands of objects per flooded run,
 * and radosgw's in-memory store on a shared machine is not the place to watch it reach 578 MB.
 */
export const ABORT_DIST_OBJECTS = 20_000;
export const ABORT_DIST_BYTES = 256 * 1024 * 1024;

/** Fetcher and S3 timeouts of the in-process runs: short, so a stalled source or S3 request costs well under a second. */
const SOURCE_TIMEOUT_MS = 400;
const S3_IDLE_MS = 1_500;
const REPO_ROOT = new URL('../..', import.meta.url).pathname;
const ACCESS_KEY = process.env.RESET_TEST_S3_ACCESS_KEY_ID ?? 'reset-test-access-key';
const SECRET_KEY = process.env.RESET_TEST_S3_SECRET_ACCESS_KEY ?? 'reset-test-secret-key';
const REGION = process.env.RESET_TEST_S3_REGION ?? 'us-east-1';
const PUBLIC_URL = 'https://api.soak.example';

export const INVARIANTS = [
  'delivery_key_twice',
  'messages_over_cap',
  'state_over_bound',
  'dist_over_bound',
  'reset_false_without_fresh_check',
  'document_older_than_replaced',
  'state_older_than_replaced',
  'published_set_incomplete',
  'published_invalid_json',
  'run_failed_without_storage_fault',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export type StorageFault =
  | 'none'
  | 's3_5xx'
  | 's3_5xx_persistent'
  | 's3_dropped_connection'
  | 's3_timeout'
  | 's3_timeout_persistent'
  | 'kill_mid_publish'
  | 'overlapping_run';

export interface TickPlan {
  sources: SourceModes;
  receiver: ReceiverMode;
  storage: StorageFault;
}

export interface SoakOptions {
  ticks: number;
  seed?: number;
  /** radosgw (RESET_TEST_S3_ENDPOINT). */
  s3Endpoint: string;
  /** Curated data: `data/` by default; a number keeps only that many of the newest ledger records (faster ticks). */
  ledgerRecords?: number;
  /** Runs only the first this many ticks of the `ticks`-long plan (a partial soak). */
  stopAfter?: number;
  /** Stops after the tick during which this much wall time has passed (a partial soak on a busy machine). */
  maxSeconds?: number;
  /** One line per tick and per violation. */
  log?: (line: string) => void;
}

export interface SoakReport {
  ticks: number;
  ticksPlanned: number;
  aborted: string | null;
  seconds: number;
  deliveries: number;
  deliveriesByChannel: Record<string, number>;
  /** Informational: a reset post delivered to the plain webhook under more than one key. */
  postsDeliveredUnderSeveralKeys: number;
  maxMessagesInOneRun: number;
  maxStateBytes: number;
  maxDistBytes: number;
  maxDistObjects: number;
  tickMs: { p50: number; p99: number; max: number };
  /** Median wall time of each stage of the in-process runs. */
  faults: Record<string, number>;
  runs: { ok: number; failed: number; skipped: number; killed: number };
  violations: Record<Invariant, number>;
  violationsTotal: number;
  /** The first few violations of each invariant, with their tick. */
  examples: string[];
}

/** Deterministic plan: which sources misbehave how, whether the receiver is down, which storage fault, tick by tick. */
export function computeSchedule(ticks: number, seed: number): TickPlan[] {
  const rand = seededRandom(seed);
  const pick = <T extends string>(table: readonly [T, number][], fallback: T): T => {
    let r = rand();
    for (const [v, p] of table) {
      if ((r -= p) < 0) return v;
    }
    return fallback;
  };
  // Flood storms: 20 runs in a row (the issue's attack), at a fifth and at three fifths of the soak.
  const burst = Math.max(1, Math.min(20, Math.floor(ticks / 5)));
  const storms = [Math.floor(ticks * 0.2), Math.floor(ticks * 0.6)];
  const inStorm = (t: number) => storms.some((s) => t >= s && t < s + burst);
  let downStreak = 0;
  const plans: TickPlan[] = [];
  for (let t = 0; t < ticks; t++) {
    // A flapping tracker stays down for a few ticks at a time.
    let tracker: SourceModes['tracker'] =
      downStreak > 0
        ? 'down'
        : pick(
            [
              ['down', 0.05],
              ['stall', 0.04],
              ['flood', 0.04],
              ['lie', 0.1],
            ],
            'ok',
          );
    if (tracker === 'down' && downStreak === 0) downStreak = 1 + Math.floor(rand() * 4);
    if (downStreak > 0) downStreak--;
    if (inStorm(t)) tracker = 'flood';
    const sources: SourceModes = {
      tracker,
      trackerStatus: pick(
        [
          ['down', 0.06],
          ['stall', 0.03],
        ],
        'ok',
      ),
      status: pick(
        [
          ['down', 0.06],
          ['stall', 0.03],
          ['lie', 0.1],
        ],
        'ok',
      ),
      feedA: pick(
        [
          ['down', 0.06],
          ['stall', 0.03],
        ],
        'ok',
      ),
      feedB: inStorm(t)
        ? 'flood'
        : pick(
            [
              ['flood', 0.15],
              ['down', 0.05],
            ],
            'ok',
          ),
    };
    let storage: StorageFault = pick(
      [
        ['s3_5xx', 0.06],
        ['s3_5xx_persistent', 0.02],
        ['s3_dropped_connection', 0.04],
        ['s3_timeout', 0.02],
        ['s3_timeout_persistent', 0.01],
      ],
      'none',
    );
    // Child-process runs: one killed mid-publish and one overlapping run in every hundred ticks (in every soak,
    // however short). Their sources are healthy, since a child waits the production fetcher timeouts.
    const period = Math.min(100, ticks);
    const child =
      t % period === Math.floor(period / 2)
        ? 'kill_mid_publish'
        : t % period === Math.floor((3 * period) / 4)
          ? 'overlapping_run'
          : null;
    if (child !== null && t > 0) storage = child;
    if (t === 0) storage = 'none';
    const healthy = child !== null || t === 0;
    plans.push({
      sources: healthy ? { tracker: 'ok', trackerStatus: 'ok', status: 'ok', feedA: 'ok', feedB: 'ok' } : sources,
      receiver: healthy ? 'ok' : pick([['down', 0.05]], 'ok'),
      storage,
    });
  }
  // A short soak still meets every fault: a kind the dice never chose goes to an early quiet tick.
  const quiet = (t: number) => t > 0 && plans[t]!.storage === 'none' && plans[t]!.sources.tracker === 'ok';
  for (const kind of [
    's3_5xx',
    's3_5xx_persistent',
    's3_dropped_connection',
    's3_timeout',
    's3_timeout_persistent',
  ] as const) {
    const t = plans.some((p) => p.storage === kind) ? -1 : plans.findIndex((_, i) => quiet(i));
    if (t > 0) plans[t]!.storage = kind;
  }
  for (const mode of ['down', 'stall', 'lie'] as const) {
    const t = plans.some((p) => p.sources.tracker === mode) ? -1 : plans.findIndex((_, i) => quiet(i));
    if (t > 0) plans[t]!.sources.tracker = mode;
  }
  if (ticks > 2 && !plans.some((p) => p.receiver === 'down')) plans[1]!.receiver = 'down';
  return plans;
}

const PERSISTENT = 1_000_000;
const isPublicPut = (r: S3Request) => r.method === 'PUT' && r.key.startsWith('api/');
const isStatePut = (r: S3Request) => r.method === 'PUT' && r.key === DEFAULT_STATE_KEY;
const isStateGet = (r: S3Request) => r.method === 'GET' && r.key === DEFAULT_STATE_KEY;
const isManifestGet = (r: S3Request) => r.method === 'GET' && r.key === DEFAULT_MANIFEST_KEY;
const isLockPut = (r: S3Request) => r.method === 'PUT' && r.key === DEFAULT_LOCK_KEY;
const rule = (label: string, fault: FaultRule['fault'], match: (r: S3Request) => boolean, times = 1): FaultRule => ({
  label,
  fault,
  match,
  times,
});

/** The proxy rules of an in-process storage fault; the SDK's 3 attempts absorb single faults, persistent ones fail the run. */
function storageRules(fault: StorageFault, rand: () => number): FaultRule[] {
  switch (fault) {
    case 's3_5xx':
      return [
        rule('500 on a public PUT', 'internal_error', isPublicPut, 1 + Math.floor(rand() * 2)),
        rule('503 SlowDown on the state PUT', 'slow_down', isStatePut),
        rule('503 SlowDown on the state GET', 'slow_down', isStateGet),
      ].filter(() => rand() < 0.7);
    case 's3_5xx_persistent':
      return [rule('503 SlowDown on every public PUT', 'slow_down', isPublicPut, PERSISTENT)];
    case 's3_dropped_connection':
      return [
        rule('connection dropped before a public PUT landed', 'drop_request', isPublicPut),
        rule('connection dropped after a public PUT landed', 'drop_response', isPublicPut),
        rule('manifest GET cut off', 'drop_response', isManifestGet),
      ].filter(() => rand() < 0.7);
    case 's3_timeout':
      return [rule('public PUT left unanswered', 'hang', isPublicPut)];
    case 's3_timeout_persistent':
      return [rule('every state GET left unanswered', 'hang', isStateGet, PERSISTENT)];
    default:
      return [];
  }
}

interface Listing {
  objects: Map<string, { etag: string; size: number }>;
  bytes: number;
}

async function listApi(client: S3Client, bucket: string): Promise<Listing> {
  const objects = new Map<string, { etag: string; size: number }>();
  let bytes = 0;
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: 'api/', ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const o of page.Contents ?? []) {
      if (!o.Key) continue;
      objects.set(o.Key, { etag: o.ETag ?? '', size: o.Size ?? 0 });
      bytes += o.Size ?? 0;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return { objects, bytes };
}

/** What the checks keep of one published JSON document. */
interface DocInfo {
  etag: string;
  /** meta.generated_at (live documents) or meta.updated_at (stable ones), epoch ms; null when it has neither. */
  timeMs: number | null;
  /** Event ids it links to (`/api/events/<id>?lang=<lang>`), as object keys. */
  eventKeys: string[];
  /** `reset` and `today.last_good_check_at` of latest/status documents. */
  reset?: boolean | null;
  lastGoodMs?: number | null;
}

const EVENT_LINK = /^(?:https?:\/\/[^/]+)?\/api\/events\/([^/?]+)\?lang=([a-z]{2})$/;

function docInfo(etag: string, body: unknown): DocInfo {
  const eventKeys = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      const m = EVENT_LINK.exec(v);
      if (m) eventKeys.add(`api/${m[2]}/events/${m[1]}.json`);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(body);
  const b = body as {
    meta?: { generated_at?: string; updated_at?: string | null };
    reset?: boolean | null;
    today?: { last_good_check_at?: string | null };
  };
  const t = b.meta?.generated_at ?? b.meta?.updated_at ?? null;
  const info: DocInfo = { etag, timeMs: t === null ? null : Date.parse(t), eventKeys: [...eventKeys] };
  if (b.today !== undefined && 'reset' in b) {
    info.reset = b.reset ?? null;
    info.lastGoodMs = b.today.last_good_check_at ? Date.parse(b.today.last_good_check_at) : null;
  }
  return info;
}

/** Deletes in parallel: a soak without its protections leaves thousands of objects, one DELETE each. */
async function emptyAndRemove(client: S3Client, bucket: string): Promise<void> {
  const keys = await listAllKeys(client, bucket);
  const limit = pLimit(16);
  await Promise.all(keys.map((key) => limit(() => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })))));
  await removeTestBucket(client, bucket);
}

/** A copy of data/ with only the newest `n` ledger records, as the storage fault suite builds it. */
async function writeLedgerSlice(dir: string, n: number): Promise<string> {
  const ledger = JSON.parse(await readFile(path.join(DATA_DIR, 'archive', 'codex-reset-ledger.json'), 'utf8')) as {
    archive: unknown;
    records: unknown[];
  };
  for (const d of ['archive', 'verified', 'reviews']) await mkdir(path.join(dir, d), { recursive: true });
  await writeFile(
    path.join(dir, 'archive', 'codex-reset-ledger.json'),
    JSON.stringify({ archive: ledger.archive, records: ledger.records.slice(-n) }),
  );
  return dir;
}

function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const seed = opts.seed ?? 20;
  const log = opts.log ?? (() => {});
  const started = performance.now();
  const t0Ms = Date.parse(SOAK_T0);
  const plans = computeSchedule(opts.ticks, seed);
  const rand = seededRandom(seed + 1);
  const resets = computeWorldResets(t0Ms, opts.ticks * TICK_MS, seededRandom(seed + 2));
  const work = await mkdtemp(path.join(tmpdir(), 'rsa-soak-'));
  const dataDir =
    opts.ledgerRecords === undefined ? DATA_DIR : await writeLedgerSlice(path.join(work, 'data'), opts.ledgerRecords);

  const admin = createTestClient();
  const bucket = await createTestBucket(admin, 'soak');
  const edgeDir = path.join(work, 'edge');
  let world: SourceWorld | null = null;
  let receiver: Receiver | null = null;
  let proxy: S3Proxy | null = null;

  const violations = Object.fromEntries(INVARIANTS.map((i) => [i, 0])) as Record<Invariant, number>;
  const examples: string[] = [];
  const faults: Record<string, number> = {};
  const countFault = (kind: string, n = 1) => (faults[kind] = (faults[kind] ?? 0) + n);
  const tickMs: number[] = [];
  const runs = { ok: 0, failed: 0, skipped: 0, killed: 0 };
  let maxState = 0;
  let maxDist = 0;
  let maxObjects = 0;
  let maxMessages = 0;
  let aborted: string | null = null;
  let ticksDone = 0;

  try {
    world = await startSourceWorld(resets, rand);
    receiver = await startReceiver();
    proxy = await startS3Proxy(opts.s3Endpoint);
    const entries = [`${receiver.url}/hook`, `slack=${receiver.url}/slack`, `discord=${receiver.url}/discord`];
    const channels = entries.map((e) => parseChannel(e)).filter((c): c is Channel => c !== null);
    const s3Env = {
      RESET_S3_BUCKET: bucket,
      RESET_S3_ENDPOINT: proxy.url,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
    };
    // The production client reads credentials from the SDK's default chain: these variables.
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY;
    process.env.AWS_SECRET_ACCESS_KEY = SECRET_KEY;
    let nowMs = t0Ms;
    const now = () => new Date(nowMs);
    const { store, sink } = createS3Targets(s3Env, now, { idleMs: S3_IDLE_MS, connectMs: 1_000 });
    const edgeStore = createLocalEdgeStore(edgeDir);
    const sources = sourceConfigsFromEnv(world.env);
    const notifier = createNotifier(channels, { timeoutMs: 1_000, budgetMs: 5_000 });
    const childEnv = {
      PATH: process.env.PATH ?? '',
      ...s3Env,
      ...world.env,
      RESET_NOTIFY_WEBHOOKS: entries.join(','),
      RESET_PUBLIC_BASE_URL: PUBLIC_URL,
    };

    const inProcess = (): Promise<RunSummary> =>
      run({
        now,
        fetcher: createHttpFetcher({
          timeoutMs: SOURCE_TIMEOUT_MS,
          retries: 1,
          backoffBaseMs: 10,
          deadline: Date.now() + 5_000,
        }),
        sources,
        store,
        sink,
        edgeStore,
        dataDir,
        urls: { publicUrl: PUBLIC_URL },
        notify: { notifier, lang: 'en' },
      });

    /** A production run as its own process; `killAtPublicPut`: SIGKILLed when it sends that many public PUTs. */
    const child = (killAtPublicPut: number | null, onLock?: () => void) => {
      const p = spawn(
        process.execPath,
        ['--import', 'tsx', 'builder/main.ts', '--target', 's3', '--now', now().toISOString(), '--data-dir', dataDir],
        {
          cwd: REPO_ROOT,
          env: childEnv,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      p.stdout.on('data', (c: Buffer) => (output += c.toString()));
      p.stderr.on('data', (c: Buffer) => (output += c.toString()));
      let puts = 0;
      let locked = false;
      proxy!.onRequest = (r) => {
        if (!locked && isLockPut(r)) {
          locked = true;
          onLock?.();
        }
        if (killAtPublicPut !== null && isPublicPut(r) && ++puts >= killAtPublicPut) {
          proxy!.freeze();
          p.kill('SIGKILL');
          proxy!.onRequest = null;
        }
      };
      return new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) =>
        p.on('exit', (code, signal) => {
          proxy!.onRequest = null;
          proxy!.thaw();
          resolve({ code, signal, output });
        }),
      );
    };

    const violate = (inv: Invariant, tick: number, detail: string) => {
      violations[inv]++;
      if (examples.filter((e) => e.includes(`] ${inv}:`)).length < 3) examples.push(`[tick ${tick}] ${inv}: ${detail}`);
      log(`  ! tick ${tick} ${inv}: ${detail}`);
    };

    const docs = new Map<string, DocInfo>();
    const keysSeen = new Map<string, number>();
    const postsByKey = new Map<string, Set<string>>();
    let lastStateMs = -Infinity;
    let deliveriesChecked = 0;

    for (let tick = 0; tick < Math.min(opts.ticks, opts.stopAfter ?? opts.ticks); tick++) {
      const plan = plans[tick]!;
      nowMs = t0Ms + tick * TICK_MS;
      world.set(tick, nowMs, plan.sources);
      receiver.set(tick, plan.receiver);
      for (const m of Object.values(plan.sources)) if (m !== 'ok') countFault(`source_${m}`);
      if (plan.receiver === 'down') countFault('receiver_down');
      const injectedBefore = proxy.injections.length;

      // ---- the tick's run(s) -------------------------------------------------------------------------------------
      const t = performance.now();
      let outcome = '';
      if (plan.storage === 'kill_mid_publish') {
        const c = await child(3 + Math.floor(rand() * 10));
        if (c.signal === 'SIGKILL') {
          runs.killed++;
          countFault('kill_mid_publish');
          outcome = 'killed mid-publish';
        } else {
          runs[c.code === 0 ? 'ok' : 'failed']++;
          outcome = `child finished before the kill point (exit ${c.code})`;
        }
      } else if (plan.storage === 'overlapping_run') {
        let mine: Promise<RunSummary | Error> | null = null;
        const c = await child(null, () => (mine = inProcess().catch((err: Error) => err)));
        const m = await (mine as Promise<RunSummary | Error> | null);
        if (m instanceof Error) {
          runs.failed++;
          violate(
            'run_failed_without_storage_fault',
            tick,
            `the in-process run overlapping a child failed: ${m.message.split('\n')[0]}`,
          );
        }
        const childSkipped = /skipped, another run holds the lock/.test(c.output);
        if (c.code !== 0) {
          runs.failed++;
          violate(
            'run_failed_without_storage_fault',
            tick,
            `overlapping child exited ${c.code}: ${c.output.slice(-300)}`,
          );
        } else runs[childSkipped ? 'skipped' : 'ok']++;
        if (m === null) outcome = 'no overlap happened';
        else if (m instanceof Error) outcome = `overlap: child exit ${c.code}, in-process failed`;
        else {
          countFault('overlapping_run');
          runs[m.skipped ? 'skipped' : 'ok']++;
          outcome = `overlap: child ${childSkipped ? 'skipped' : c.code === 0 ? 'published' : `exit ${c.code}`}, in-process ${m.skipped ? 'skipped' : 'published'}`;
        }
      } else {
        proxy.arm(...storageRules(plan.storage, rand));
        try {
          const s = await inProcess();
          runs[s.skipped ? 'skipped' : 'ok']++;
          outcome = s.skipped
            ? 'skipped'
            : `${s.today} (reset ${s.reset}), ${s.published!.written} written, notifications ${s.notifications?.sent ?? 0} sent`;
        } catch (err) {
          runs.failed++;
          outcome = `failed: ${(err as Error).message.split('\n')[0]!.slice(0, 160)}`;
          // Any storage fault may fail a run (a cut-off manifest does, by design); the next tick must recover.
          if (plan.storage === 'none') violate('run_failed_without_storage_fault', tick, outcome);
        }
        proxy.disarm();
      }
      tickMs.push(performance.now() - t);
      for (const i of proxy.injections.slice(injectedBefore)) countFault(`s3_${i.fault}`);

      // ---- invariants ----------------------------------------------------------------------------------------------
      // Notifications: no key twice on one channel; per run and channel at most the cap plus one digest.
      const fresh = receiver.deliveries.slice(deliveriesChecked);
      deliveriesChecked = receiver.deliveries.length;
      const perChannel = new Map<string, number>();
      for (const d of fresh) {
        perChannel.set(d.channel, (perChannel.get(d.channel) ?? 0) + 1);
        const k = `${d.channel} ${d.key}`;
        const n = (keysSeen.get(k) ?? 0) + 1;
        keysSeen.set(k, n);
        if (n === 2) violate('delivery_key_twice', tick, `${d.channel} received ${d.key} again`);
        if (d.source !== null) postsByKey.set(d.source, (postsByKey.get(d.source) ?? new Set()).add(d.key));
      }
      for (const [c, n] of perChannel) {
        maxMessages = Math.max(maxMessages, n);
        if (n > MESSAGES_PER_RUN_CAP + DIGESTS_PER_RUN)
          violate(
            'messages_over_cap',
            tick,
            `${c} got ${n} messages in one run (cap ${MESSAGES_PER_RUN_CAP} + ${DIGESTS_PER_RUN} digest)`,
          );
      }

      // Sizes of the state and of everything published.
      const stateText = await readText(admin, bucket, DEFAULT_STATE_KEY);
      if (stateText !== null) {
        const bytes = Buffer.byteLength(stateText);
        maxState = Math.max(maxState, bytes);
        if (bytes > MAX_STATE_BYTES) violate('state_over_bound', tick, `state ${bytes} bytes > ${MAX_STATE_BYTES}`);
        try {
          const updated = (JSON.parse(stateText) as { updated_at?: string | null }).updated_at;
          const ms = updated ? Date.parse(updated) : -Infinity;
          if (ms < lastStateMs)
            violate(
              'state_older_than_replaced',
              tick,
              `state updated_at ${updated} after ${new Date(lastStateMs).toISOString()}`,
            );
          lastStateMs = Math.max(lastStateMs, ms);
        } catch {
          // A corrupt state object is the store's to recover from (it keeps a last good copy); not a published document.
        }
      }
      const listing = await listApi(admin, bucket);
      maxDist = Math.max(maxDist, listing.bytes);
      maxObjects = Math.max(maxObjects, listing.objects.size);
      if (listing.bytes > MAX_DIST_BYTES || listing.objects.size > MAX_DIST_OBJECTS) {
        violate(
          'dist_over_bound',
          tick,
          `${listing.objects.size} objects, ${listing.bytes} bytes (bounds ${MAX_DIST_OBJECTS}, ${MAX_DIST_BYTES})`,
        );
      }

      // Every changed JSON document: valid, and not older than the one it replaced. New event documents replace
      // nothing and link nowhere, so they are not read (a flood publishes thousands).
      const toRead = [...listing.objects].filter(
        ([key, o]) =>
          key.endsWith('.json') && docs.get(key)?.etag !== o.etag && (docs.has(key) || !/\/events\//.test(key)),
      );
      for (let i = 0; i < toRead.length; i += 16) {
        await Promise.all(
          toRead.slice(i, i + 16).map(async ([key, o]) => {
            const text = await readText(admin, bucket, key);
            if (text === null) return; // deleted between the listing and the read
            let info: DocInfo;
            try {
              info = docInfo(o.etag, JSON.parse(text));
            } catch {
              violate('published_invalid_json', tick, key);
              return;
            }
            const prev = docs.get(key);
            if (prev && prev.timeMs !== null && info.timeMs !== null && info.timeMs < prev.timeMs) {
              violate(
                'document_older_than_replaced',
                tick,
                `${key}: ${new Date(info.timeMs).toISOString()} replaced ${new Date(prev.timeMs).toISOString()}`,
              );
            }
            docs.set(key, info);
          }),
        );
      }
      for (const key of [...docs.keys()]) if (!listing.objects.has(key)) docs.delete(key);

      // The published set is complete: every event a present document lists is an object.
      const missing: string[] = [];
      for (const [key, info] of docs)
        for (const ek of info.eventKeys) if (!listing.objects.has(ek)) missing.push(`${key} lists ${ek}`);
      // One violation per tick, however many links dangle.
      if (missing.length > 0)
        violate('published_set_incomplete', tick, `${missing.length} links to unpublished events, e.g. ${missing[0]}`);

      // `reset: false` only with a fresh good check, in what the edge serves now and just before the next tick.
      const edge = await edgeStore.read();
      const freshness = parseFreshness(edge[EDGE_FRESHNESS_KEY]);
      for (const at of [nowMs, nowMs + TICK_MS - 1]) {
        for (const lang of LANGS) {
          for (const endpoint of ['latest', 'status']) {
            const r = route(
              { method: 'GET', uri: `/api/${endpoint}`, query: `lang=${lang}` },
              { now: at, freshness, eventKnown: null },
            );
            if (r.kind !== 'object') continue;
            const d = docs.get(r.key);
            if (d === undefined || d.reset !== false) continue;
            if (d.lastGoodMs === null || d.lastGoodMs === undefined || at - d.lastGoodMs > FRESH_CHECK_MS) {
              violate(
                'reset_false_without_fresh_check',
                tick,
                `${r.key} says reset false at ${new Date(at).toISOString()}, last good check ${d.lastGoodMs ? new Date(d.lastGoodMs).toISOString() : 'none'}`,
              );
            }
          }
        }
      }

      ticksDone = tick + 1;
      const injected = proxy.injections.slice(injectedBefore).map((i) => i.label);
      log(
        `tick ${tick} ${new Date(nowMs).toISOString()} ${(tickMs[tick]! / 1000).toFixed(2)} s · sources ${Object.values(plan.sources).join('/')} · receiver ${plan.receiver} · storage ${plan.storage}${injected.length ? ` (${injected.length} injected)` : ''} · ${outcome} · ${fresh.length} deliveries · state ${stateText?.length ?? 0} B · api ${listing.objects.size} objects ${(listing.bytes / 1024 / 1024).toFixed(1)} MiB`,
      );
      if (
        opts.maxSeconds !== undefined &&
        (performance.now() - started) / 1000 > opts.maxSeconds &&
        tick + 1 < opts.ticks
      ) {
        aborted = `stopped after tick ${tick}: the wall-time budget of ${opts.maxSeconds} s is spent`;
        log(aborted);
        break;
      }
      if (listing.objects.size > ABORT_DIST_OBJECTS || listing.bytes > ABORT_DIST_BYTES) {
        aborted = `stopped after tick ${tick}: the API holds ${listing.objects.size} objects, ${listing.bytes} bytes (abort bounds ${ABORT_DIST_OBJECTS} objects, ${ABORT_DIST_BYTES} bytes)`;
        log(aborted);
        break;
      }
    }
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;

    const byChannel: Record<string, number> = {};
    for (const d of receiver.deliveries) byChannel[d.channel] = (byChannel[d.channel] ?? 0) + 1;
    const total = Object.values(violations).reduce((a, b) => a + b, 0);
    return {
      ticks: ticksDone,
      ticksPlanned: opts.ticks,
      aborted,
      seconds: (performance.now() - started) / 1000,
      deliveries: receiver.deliveries.length,
      deliveriesByChannel: byChannel,
      postsDeliveredUnderSeveralKeys: [...postsByKey.values()].filter((s) => s.size > 1).length,
      maxMessagesInOneRun: maxMessages,
      maxStateBytes: maxState,
      maxDistBytes: maxDist,
      maxDistObjects: maxObjects,
      tickMs: { p50: percentile(tickMs, 50), p99: percentile(tickMs, 99), max: Math.max(...tickMs) },
      faults: Object.fromEntries(Object.entries(faults).sort(([a], [b]) => a.localeCompare(b))),
      runs,
      violations,
      violationsTotal: total,
      examples,
    };
  } finally {
    await proxy?.close();
    await world?.close();
    await receiver?.close();
    await emptyAndRemove(admin, bucket).catch(() => {});
    await rm(work, { recursive: true, force: true });
  }
}

/** The figures as printed by `npm run soak` and copied into BENCHMARKS.md. */
export function formatSoakReport(r: SoakReport): string {
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MiB`;
  const lines = [
    `soak: ${r.ticks} of ${r.ticksPlanned} ticks of 15 simulated minutes in ${r.seconds.toFixed(0)} s${r.aborted ? ` (ABORTED: ${r.aborted})` : ''}`,
    `runs: ${r.runs.ok} ok, ${r.runs.failed} failed (storage faults), ${r.runs.skipped} skipped (lock held), ${r.runs.killed} killed`,
    `deliveries: ${r.deliveries} (${
      Object.entries(r.deliveriesByChannel)
        .map(([c, n]) => `${c} ${n}`)
        .join(', ') || 'none'
    }); most in one run to one channel: ${r.maxMessagesInOneRun}; reset posts delivered under several keys: ${r.postsDeliveredUnderSeveralKeys}`,
    `max state: ${r.maxStateBytes} bytes (${mib(r.maxStateBytes)}; bound ${mib(MAX_STATE_BYTES)})`,
    `max published: ${r.maxDistBytes} bytes (${mib(r.maxDistBytes)}; bound ${mib(MAX_DIST_BYTES)}) in at most ${r.maxDistObjects} objects (bound ${MAX_DIST_OBJECTS})`,
    `tick time: p50 ${(r.tickMs.p50 / 1000).toFixed(2)} s, p99 ${(r.tickMs.p99 / 1000).toFixed(2)} s, max ${(r.tickMs.max / 1000).toFixed(2)} s`,
    `faults injected: ${Object.entries(r.faults)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `invariants violated: ${r.violationsTotal}${
      r.violationsTotal
        ? ` (${Object.entries(r.violations)
            .filter(([, n]) => n > 0)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')})`
        : ''
    }`,
    ...r.examples.map((e) => `  ${e}`),
  ];
  return lines.join('\n');
}
