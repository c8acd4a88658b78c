// S3 settings from the environment (RESET_S3_*), and the rule that keeps private objects out of the public prefix.
import { ConfigError } from '../errors.ts';

export const DEFAULT_STATE_KEY = 'state/state.json';
export const DEFAULT_LOCK_KEY = 'state/run.lock';
export const DEFAULT_MANIFEST_KEY = 'state/publish-manifest.json';
export const DEFAULT_BACKUP_PREFIX = 'backups/';
/** Objects dropped from a build stay this long, so CDN caches and clients mid-navigation never hit a 404. */
export const DELETE_AFTER_MS = 60 * 60 * 1000;
/**
 * Parallel requests. 16, not 8: the sink's uploads cost little CPU each, and radosgw on
 * 2 cores took ~270 PUT/s at 16 against ~210 at 8 (measured on radosgw); S3 itself takes far more.
 */
export const DEFAULT_CONCURRENCY = 16;
/** Idle ticks trust the manifest; one publish in this many (every 3 hours at one run per 15 minutes) lists the bucket. */
export const DEFAULT_LIST_EVERY = 12;
/** A listing at least this often whatever the tick count (runs may be skipped or delayed). */
export const DEFAULT_LIST_MAX_AGE_MS = 6 * 60 * 60 * 1000;
/** What the edge router serves under the public prefix; every private key must stay outside it. */
export const PUBLIC_API_ROOT = 'api/';

const WHERE = 's3/config';

type Env = Readonly<Record<string, string | undefined>>;

const withSlash = (p: string) => (p === '' || p.endsWith('/') ? p : `${p}/`);

function integer(env: Env, name: string, fallback: number, min: 0 | 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  const kind = min === 0 ? 'non-negative' : 'positive';
  if (!Number.isInteger(n) || n < min)
    throw new ConfigError(WHERE, `${name} must be a ${kind} integer, got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * Reads the RESET_S3_* variables and AWS_REGION, throwing a ConfigError: a run cannot start without them.
 * Credentials are never read here: the SDK's default chain finds them.
 */
export function requireS3Config(env: Env) {
  const bucket = env.RESET_S3_BUCKET ?? '';
  if (bucket === '') throw new ConfigError(WHERE, 'RESET_S3_BUCKET is not set');
  const endpoint = env.RESET_S3_ENDPOINT || null;
  if (endpoint !== null && !/^https?:\/\/[^/]+/.test(endpoint))
    throw new ConfigError(WHERE, `RESET_S3_ENDPOINT must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  // A custom endpoint ignores the region for routing but the signature still needs one.
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || (endpoint !== null ? 'us-east-1' : '');
  if (region === '') throw new ConfigError(WHERE, 'AWS_REGION is not set');
  const prefix = withSlash(env.RESET_S3_PREFIX ?? '');
  /** The key `name` sets, refused where private data would not stay private. */
  const privateKey = (name: string, key: string) => {
    const problem = privateKeyProblem(key, prefix);
    if (problem !== null) throw new ConfigError(WHERE, `${name}: ${problem}`);
    return key;
  };
  // The numbers first: a bad number is reported before a bad key.
  return {
    bucket,
    region,
    /** Set for non-AWS S3 (radosgw, MinIO); path-style addressing is then forced. */
    endpoint,
    deleteAfterMs: integer(env, 'RESET_S3_DELETE_AFTER_MS', DELETE_AFTER_MS, 0),
    /** The sink lists the bucket (to catch drift) at most every this many publishes; 1 lists on every publish. */
    listEvery: integer(env, 'RESET_S3_LIST_EVERY', DEFAULT_LIST_EVERY, 1),
    /** Public API prefix ('' or ending in '/'); the CDN serves `${prefix}api/...`. */
    prefix,
    stateKey: privateKey('RESET_S3_STATE_KEY', env.RESET_S3_STATE_KEY || DEFAULT_STATE_KEY),
    lockKey: privateKey('RESET_S3_LOCK_KEY', env.RESET_S3_LOCK_KEY || DEFAULT_LOCK_KEY),
    /** Where the S3 sink remembers what it published and since when a dropped object has been missing. */
    manifestKey: privateKey('RESET_S3_MANIFEST_KEY', env.RESET_S3_MANIFEST_KEY || DEFAULT_MANIFEST_KEY),
    backupPrefix: privateKey('RESET_S3_BACKUP_PREFIX', withSlash(env.RESET_S3_BACKUP_PREFIX || DEFAULT_BACKUP_PREFIX)),
  };
}

/** Why `key` may not hold private data (state, manifest, backups), or null when it is safe. */
function privateKeyProblem(key: string, publicPrefix: string): string | null {
  if (key === '' || key.startsWith('/') || key.split('/').some((p) => p === '..' || p === '.'))
    return `unsafe key ${JSON.stringify(key)}`;
  if (publicPrefix !== '' && key.startsWith(publicPrefix))
    return `${JSON.stringify(key)} lies under the public prefix ${JSON.stringify(publicPrefix)}`;
  if (key.startsWith(publicPrefix + PUBLIC_API_ROOT))
    return `${JSON.stringify(key)} lies under the public API root ${JSON.stringify(publicPrefix + PUBLIC_API_ROOT)}`;
  return null;
}

export function assertPrivateKey(key: string, publicPrefix: string, where: string): void {
  const problem = privateKeyProblem(key, publicPrefix);
  if (problem !== null) throw new ConfigError(where, `refusing to keep private data at ${problem}`);
}
