// S3 settings from the environment, the client built from them, and the few S3 helpers the sink, the state
// store and the backups share (conditional writes, error descriptions, private-key checks).
import { randomUUID } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, type PutObjectCommandInput } from '@aws-sdk/client-s3';

export interface S3Config {
  bucket: string;
  /** Public API prefix ('' or ending in '/'); the CDN serves `${prefix}api/...`. */
  prefix: string;
  stateKey: string;
  lockKey: string;
  /** Where the S3 sink remembers what it published and since when a dropped object has been missing. */
  manifestKey: string;
  backupPrefix: string;
  region: string;
  /** Set for non-AWS S3 (radosgw, MinIO); path-style addressing is then forced. */
  endpoint: string | null;
  deleteAfterMs: number;
  concurrency: number;
}

export const DEFAULT_STATE_KEY = 'state/state.json';
export const DEFAULT_LOCK_KEY = 'state/run.lock';
export const DEFAULT_MANIFEST_KEY = 'state/publish-manifest.json';
export const DEFAULT_BACKUP_PREFIX = 'backups/';
/** Objects dropped from a build stay this long, so CDN caches and clients mid-navigation never hit a 404. */
export const DELETE_AFTER_MS = 60 * 60 * 1000;
export const DEFAULT_CONCURRENCY = 8;
/** What the edge router serves under the public prefix; every private key must stay outside it. */
export const PUBLIC_API_ROOT = 'api/';

type Env = Readonly<Record<string, string | undefined>>;

const withSlash = (p: string) => (p === '' || p.endsWith('/') ? p : `${p}/`);

function positiveInt(env: Env, name: string, fallback: number): number | string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : `${name} must be a non-negative integer, got ${JSON.stringify(raw)}`;
}

/** Reads the RESET_S3_* variables and AWS_REGION. Credentials are never read here: the SDK's default chain finds them. */
export function s3ConfigFromEnv(env: Env): { ok: true; config: S3Config } | { ok: false; error: string } {
  const bucket = env.RESET_S3_BUCKET ?? '';
  if (bucket === '') return { ok: false, error: '[publish/s3-config] RESET_S3_BUCKET is not set' };
  const endpoint = env.RESET_S3_ENDPOINT || null;
  if (endpoint !== null && !/^https?:\/\/[^/]+/.test(endpoint)) {
    return { ok: false, error: `[publish/s3-config] RESET_S3_ENDPOINT must be an http(s) URL, got ${JSON.stringify(endpoint)}` };
  }
  // A custom endpoint ignores the region for routing but the signature still needs one.
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || (endpoint !== null ? 'us-east-1' : '');
  if (region === '') return { ok: false, error: '[publish/s3-config] AWS_REGION is not set' };
  const deleteAfterMs = positiveInt(env, 'RESET_S3_DELETE_AFTER_MS', DELETE_AFTER_MS);
  if (typeof deleteAfterMs === 'string') return { ok: false, error: `[publish/s3-config] ${deleteAfterMs}` };
  const concurrency = positiveInt(env, 'RESET_S3_CONCURRENCY', DEFAULT_CONCURRENCY);
  if (typeof concurrency === 'string' || concurrency < 1) {
    return { ok: false, error: `[publish/s3-config] RESET_S3_CONCURRENCY must be a positive integer` };
  }
  const config: S3Config = {
    bucket,
    prefix: withSlash(env.RESET_S3_PREFIX ?? ''),
    stateKey: env.RESET_S3_STATE_KEY || DEFAULT_STATE_KEY,
    lockKey: env.RESET_S3_LOCK_KEY || DEFAULT_LOCK_KEY,
    manifestKey: env.RESET_S3_MANIFEST_KEY || DEFAULT_MANIFEST_KEY,
    backupPrefix: withSlash(env.RESET_S3_BACKUP_PREFIX || DEFAULT_BACKUP_PREFIX),
    region,
    endpoint,
    deleteAfterMs,
    concurrency,
  };
  for (const [name, key] of [
    ['RESET_S3_STATE_KEY', config.stateKey],
    ['RESET_S3_LOCK_KEY', config.lockKey],
    ['RESET_S3_MANIFEST_KEY', config.manifestKey],
    ['RESET_S3_BACKUP_PREFIX', config.backupPrefix],
  ] as const) {
    const problem = privateKeyProblem(key, config.prefix);
    if (problem !== null) return { ok: false, error: `[publish/s3-config] ${name}: ${problem}` };
  }
  return { ok: true, config };
}

/**
 * A request whose connection stays silent this long fails (and is retried by the SDK) instead of hanging the run:
 * the SDK has no timeout by default, and a stalled S3 server (a radosgw whose OSD is full accepts requests and never
 * answers them) would otherwise hold the run lock until it expires. It is an idle timeout, so a large upload that
 * keeps moving is never cut off.
 */
export const S3_IDLE_TIMEOUT_MS = 30_000;
export const S3_CONNECT_TIMEOUT_MS = 5_000;

/**
 * The client every S3 part of the project uses. `credentials` defaults to the SDK's own chain (environment, profile,
 * instance role); the publish bench passes radosgw's test keys.
 */
export function createS3Client(
  cfg: Pick<S3Config, 'region' | 'endpoint'>,
  opts: { idleMs?: number; connectMs?: number; credentials?: { accessKeyId: string; secretAccessKey: string } } = {},
): S3Client {
  return new S3Client({
    region: cfg.region,
    requestHandler: { socketTimeout: opts.idleMs ?? S3_IDLE_TIMEOUT_MS, connectionTimeout: opts.connectMs ?? S3_CONNECT_TIMEOUT_MS },
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    ...(cfg.endpoint !== null
      ? {
          endpoint: cfg.endpoint,
          forcePathStyle: true,
          // Older S3-compatible servers reject or mis-handle the SDK's default CRC checksums.
          requestChecksumCalculation: 'WHEN_REQUIRED' as const,
          responseChecksumValidation: 'WHEN_REQUIRED' as const,
        }
      : {}),
  });
}

/** Why `key` may not hold private data (state, manifest, backups), or null when it is safe. */
export function privateKeyProblem(key: string, publicPrefix: string): string | null {
  if (key === '' || key.startsWith('/') || key.split('/').some((p) => p === '..' || p === '.')) return `unsafe key ${JSON.stringify(key)}`;
  if (publicPrefix !== '' && key.startsWith(publicPrefix)) return `${JSON.stringify(key)} lies under the public prefix ${JSON.stringify(publicPrefix)}`;
  if (key.startsWith(publicPrefix + PUBLIC_API_ROOT)) return `${JSON.stringify(key)} lies under the public API root ${JSON.stringify(publicPrefix + PUBLIC_API_ROOT)}`;
  return null;
}

export function assertPrivateKey(key: string, publicPrefix: string, where: string): void {
  const problem = privateKeyProblem(key, publicPrefix);
  if (problem !== null) throw new Error(`[${where}] refusing to keep private data at ${problem}`);
}

export function httpStatusOf(err: unknown): number | null {
  const status = (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : null;
}

export function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return httpStatusOf(err) === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

/** A lost conditional write: 412 Precondition Failed, or AWS's 409 when two conditional writes overlap. */
export function isConditionFailure(err: unknown): boolean {
  const status = httpStatusOf(err);
  const name = (err as { name?: string } | null)?.name;
  return status === 412 || name === 'PreconditionFailed' || (status === 409 && name === 'ConditionalRequestConflict');
}

/** `[where] VERB s3://bucket/key -> 503 SlowDown` */
export function describeS3Error(where: string, verb: string, bucket: string, key: string, err: unknown): Error {
  const status = httpStatusOf(err);
  const name = (err as { name?: string } | null)?.name ?? 'Error';
  const message = (err as { message?: string } | null)?.message ?? String(err);
  const e = new Error(`[${where}] ${verb} s3://${bucket}/${key} -> ${status ?? 'no response'} ${name}${message && message !== name ? `: ${message}` : ''}`);
  e.cause = err;
  return e;
}

/** ETags are opaque strings; the quotes are transport syntax and never part of a version token here. */
export const bareEtag = (etag: string | undefined): string => (etag ?? '').replace(/^W\//, '').replace(/"/g, '');

/** The metadata key that tags each conditional write, so its outcome can be told after an ambiguous answer. */
const WRITE_ID_META = 'write-id';

/** A conditional write lost to another writer, for answers that only revealed that on a second look. */
function conditionLost(cause: unknown): Error {
  return Object.assign(new Error('PreconditionFailed (found another writer\'s object after an ambiguous answer)'), {
    name: 'PreconditionFailed',
    $metadata: { httpStatusCode: 412 },
    cause,
  });
}

async function headOrNull(client: S3Client, bucket: string, key: string): Promise<{ etag: string; writeId: string | null } | null> {
  try {
    const h = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return { etag: bareEtag(h.ETag), writeId: h.Metadata?.[WRITE_ID_META] ?? null };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/**
 * radosgw compares If-Match against the bare ETag (a quoted one always fails); other servers may want the quoted
 * form. The bare form is tried first; when it fails while the object still carries that very ETag, the server
 * evidently wants quotes, which is remembered per client.
 */
const wantsQuotedIfMatch = new WeakMap<object, boolean>();

/**
 * One conditional PUT whose outcome is always known. Answers can mislead: radosgw answers 500 (ECANCELED) to the
 * losers of a race, and an SDK retry of a write that did land gets 412. So after any failure the object is
 * looked at once: carrying our write id, the write landed; carrying another ETag, another writer won (412).
 */
async function conditionalPut(
  client: S3Client,
  input: PutObjectCommandInput & { Bucket: string; Key: string },
  expected: string | null,
): Promise<string> {
  const writeId = randomUUID();
  const send = async (ifMatch: string | null) => {
    const condition = ifMatch === null ? { IfNoneMatch: '*' } : { IfMatch: ifMatch };
    const r = await client.send(new PutObjectCommand({ ...input, ...condition, Metadata: { ...input.Metadata, [WRITE_ID_META]: writeId } }));
    return bareEtag(r.ETag);
  };
  const bare = expected === null ? null : bareEtag(expected);
  const quoted = wantsQuotedIfMatch.get(client) === true;
  try {
    return await send(bare === null ? null : quoted ? `"${bare}"` : bare);
  } catch (err) {
    const status = httpStatusOf(err);
    const ambiguous = status === null || status >= 500;
    if (!isConditionFailure(err) && !ambiguous) throw err;
    const current = await headOrNull(client, input.Bucket, input.Key);
    if (current !== null && current.writeId === writeId) return current.etag;
    const unchanged = bare === null ? current === null : current !== null && current.etag === bare;
    if (!unchanged) throw isConditionFailure(err) ? err : conditionLost(err);
    if (ambiguous) throw err;
    if (bare === null || quoted) throw err;
    wantsQuotedIfMatch.set(client, true);
    return await conditionalPut(client, input, expected);
  }
}

/** PUT only if the object still has ETag `etag` (quoted or not); a lost race throws a 412-like error. */
export function putIfMatch(client: S3Client, input: PutObjectCommandInput & { Bucket: string; Key: string }, etag: string): Promise<string> {
  return conditionalPut(client, input, etag);
}

/** PUT only if no object exists at the key; a lost race throws a 412-like error. */
export function putIfAbsent(client: S3Client, input: PutObjectCommandInput & { Bucket: string; Key: string }): Promise<string> {
  return conditionalPut(client, input, null);
}

/** The object's bytes and bare ETag, or null when it does not exist. */
export async function getObjectBytes(client: S3Client, bucket: string, key: string): Promise<{ body: Uint8Array; etag: string } | null> {
  try {
    const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!r.Body) return { body: new Uint8Array(), etag: bareEtag(r.ETag) };
    return { body: await r.Body.transformToByteArray(), etag: bareEtag(r.ETag) };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}
