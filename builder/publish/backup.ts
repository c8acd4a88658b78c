// Dated snapshots of the state object and the curated data/ directory, with SHA-256 checksums, under a private
// prefix. A snapshot is complete when its manifest.json exists (written last); it is never modified afterwards.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { ConfigError, ConflictError } from '../errors.ts';
import { writeFileAtomic } from '../fsutil/atomic.ts';
import {
  BACKUP_ID,
  DATA_DIR,
  MANIFEST,
  STATE_OBJECT,
  WHERE,
  assertBackupId,
  backupIdFor,
  parseManifest,
  type BackupFileEntry,
  type BackupManifest,
  type BackupProblem,
  type BackupSummary,
  type RestoreResult,
  type VerifyReport,
} from './backup-manifest.ts';

export { backupIdFor, type BackupProblem, type BackupSummary, type RestoreResult, type VerifyReport };
import { assertSafeKey } from '../fsutil/safe-key.ts';
import { getObjectBytes, putIfAbsent, putIfMatch } from '../s3/conditional.ts';
import { DEFAULT_BACKUP_PREFIX, DEFAULT_CONCURRENCY, DEFAULT_STATE_KEY, assertPrivateKey } from '../s3/config.ts';
import { describeS3Error, isConditionFailure } from '../s3/errors.ts';

export interface BackupTarget {
  client: S3Client;
  bucket: string;
  /** Private prefix for snapshots, ending in '/'; default `backups/`. */
  backupPrefix?: string;
  stateKey?: string;
  /** The public API prefix; snapshots are refused under it. */
  publicPrefix?: string;
  concurrency?: number;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function resolveTarget(t: BackupTarget) {
  const backupPrefix = t.backupPrefix ?? DEFAULT_BACKUP_PREFIX;
  if (!backupPrefix.endsWith('/'))
    throw new ConfigError(WHERE, `backup prefix must end in '/', got ${JSON.stringify(backupPrefix)}`);
  const stateKey = t.stateKey ?? DEFAULT_STATE_KEY;
  assertPrivateKey(backupPrefix, t.publicPrefix ?? '', WHERE);
  return {
    client: t.client,
    bucket: t.bucket,
    backupPrefix,
    stateKey,
    limit: pLimit(t.concurrency ?? DEFAULT_CONCURRENCY),
  };
}

async function listDataFiles(root: string, rel = ''): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(path.join(root, rel), { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && rel === '') return [];
    throw err;
  }
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listDataFiles(root, r)));
    else if (e.isFile()) out.push(r);
  }
  return out;
}

async function listKeys(
  client: S3Client,
  bucket: string,
  prefix: string,
  delimiter?: string,
): Promise<{ keys: string[]; prefixes: string[] }> {
  const keys: string[] = [];
  const prefixes: string[] = [];
  let token: string | undefined;
  do {
    let page;
    try {
      page = await client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: prefix,
          ...(delimiter ? { Delimiter: delimiter } : {}),
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
    } catch (err) {
      throw describeS3Error(WHERE, 'LIST', bucket, prefix, err);
    }
    for (const o of page.Contents ?? []) if (o.Key !== undefined) keys.push(o.Key);
    for (const p of page.CommonPrefixes ?? []) if (p.Prefix !== undefined) prefixes.push(p.Prefix);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return { keys, prefixes };
}

/** Snapshots the state object and every file under `dataDir` as `<backupPrefix><id>/`. */
export async function createBackup(target: BackupTarget, opts: { dataDir: string; now: Date }): Promise<BackupSummary> {
  const { client, bucket, backupPrefix, stateKey, limit } = resolveTarget(target);
  const id = backupIdFor(opts.now);
  const base = `${backupPrefix}${id}/`;
  const put = async (key: string, body: Uint8Array, contentType: string) => {
    try {
      // Never overwrite: a snapshot is immutable, and an id taken twice in one second is an error.
      await putIfAbsent(client, { Bucket: bucket, Key: key, Body: body, ContentType: contentType });
    } catch (err) {
      if (isConditionFailure(err))
        throw new ConflictError(WHERE, `PUT s3://${bucket}/${key}: a backup with id ${id} already exists`, {
          cause: err,
        });
      throw describeS3Error(WHERE, 'PUT', bucket, key, err);
    }
  };

  let stateBytes: Uint8Array | null;
  try {
    stateBytes = (await getObjectBytes(client, bucket, stateKey))?.body ?? null;
  } catch (err) {
    throw describeS3Error(WHERE, 'GET', bucket, stateKey, err);
  }
  if (stateBytes !== null) await put(base + STATE_OBJECT, stateBytes, 'application/json');

  const files = await listDataFiles(opts.dataDir);
  const entries = await Promise.all(
    files.map((rel) =>
      limit(async (): Promise<BackupFileEntry> => {
        assertSafeKey(rel);
        const body = new Uint8Array(await readFile(path.join(opts.dataDir, rel)));
        await put(base + DATA_DIR + rel, body, 'application/octet-stream');
        return { path: rel, sha256: sha256(body), bytes: body.byteLength };
      }),
    ),
  );
  const manifest: BackupManifest = {
    version: 1,
    id,
    created_at: opts.now.toISOString(),
    state_key: stateKey,
    state: stateBytes === null ? null : { sha256: sha256(stateBytes), bytes: stateBytes.byteLength },
    files: entries,
  };
  await put(base + MANIFEST, Buffer.from(JSON.stringify(manifest, null, 2) + '\n'), 'application/json');
  return {
    id,
    location: `s3://${bucket}/${base}`,
    created_at: manifest.created_at,
    files: entries.length,
    state: stateBytes !== null,
  };
}

interface LoadedSnapshot {
  report: VerifyReport;
  manifest: BackupManifest | null;
  state: Uint8Array | null;
  files: Map<string, Uint8Array>;
}

async function loadSnapshot(target: BackupTarget, id: string): Promise<LoadedSnapshot> {
  assertBackupId(id);
  const { client, bucket, backupPrefix, limit } = resolveTarget(target);
  const base = `${backupPrefix}${id}/`;
  const problems: BackupProblem[] = [];
  const files = new Map<string, Uint8Array>();
  const get = async (key: string) => {
    try {
      return await getObjectBytes(client, bucket, key);
    } catch (err) {
      throw describeS3Error(WHERE, 'GET', bucket, key, err);
    }
  };
  const done = (manifest: BackupManifest | null, state: Uint8Array | null, checked: number): LoadedSnapshot => ({
    report: { id, ok: problems.length === 0, checked, problems },
    manifest,
    state,
    files,
  });

  const rawManifest = await get(base + MANIFEST);
  if (rawManifest === null) {
    problems.push({
      object: MANIFEST,
      kind: 'missing',
      detail: `no s3://${bucket}/${base}${MANIFEST} (no such backup, or it never completed)`,
    });
    return done(null, null, 0);
  }
  const manifest = parseManifest(rawManifest.body, id);
  if (typeof manifest === 'string') {
    problems.push({ object: MANIFEST, kind: 'manifest', detail: manifest });
    return done(null, null, 0);
  }

  const check = (
    object: string,
    body: Uint8Array | null,
    expected: { sha256: string; bytes: number },
  ): body is Uint8Array => {
    if (body === null) {
      problems.push({
        object,
        kind: 'missing',
        detail: `s3://${bucket}/${base}${object} is listed in the manifest but does not exist`,
      });
      return false;
    }
    const actual = sha256(body);
    if (actual !== expected.sha256 || body.byteLength !== expected.bytes) {
      problems.push({
        object,
        kind: 'mismatch',
        detail: `sha256 ${actual} (${body.byteLength} bytes), manifest says ${expected.sha256} (${expected.bytes} bytes)`,
      });
      return false;
    }
    return true;
  };

  let state: Uint8Array | null = null;
  if (manifest.state !== null) {
    const body = (await get(base + STATE_OBJECT))?.body ?? null;
    if (check(STATE_OBJECT, body, manifest.state)) state = body;
  }
  await Promise.all(
    manifest.files.map((f) =>
      limit(async () => {
        const body = (await get(base + DATA_DIR + f.path))?.body ?? null;
        if (check(DATA_DIR + f.path, body, f)) files.set(f.path, body);
      }),
    ),
  );
  // A snapshot is immutable: anything added after the fact is suspect too.
  const expected = new Set([
    MANIFEST,
    ...(manifest.state !== null ? [STATE_OBJECT] : []),
    ...manifest.files.map((f) => DATA_DIR + f.path),
  ]);
  for (const key of (await listKeys(client, bucket, base)).keys) {
    const rel = key.slice(base.length);
    if (!expected.has(rel))
      problems.push({ object: rel, kind: 'unexpected', detail: `s3://${bucket}/${key} is not in the manifest` });
  }
  problems.sort((a, b) => (a.object < b.object ? -1 : a.object > b.object ? 1 : 0));
  return done(manifest, state, manifest.files.length + (manifest.state !== null ? 1 : 0));
}

/** Downloads every object of the snapshot and recomputes its checksum; lists every problem found. */
export async function verifyBackup(target: BackupTarget, id: string): Promise<VerifyReport> {
  return (await loadSnapshot(target, id)).report;
}

/**
 * Restores a snapshot that verifies: the state object (conditionally, so a run that saved meanwhile is not
 * silently overwritten; the replaced state is kept next to the backups) and every data file. Files in
 * `dataDir` that the snapshot does not have are left alone. A snapshot that fails verification is refused.
 */
export async function restoreBackup(
  target: BackupTarget,
  id: string,
  opts: { dataDir: string },
): Promise<RestoreResult> {
  const { client, bucket, backupPrefix, stateKey } = resolveTarget(target);
  const loaded = await loadSnapshot(target, id);
  if (!loaded.report.ok || loaded.manifest === null) return { ok: false, id, problems: loaded.report.problems };

  let replacedStateKept: string | null = null;
  if (loaded.state !== null) {
    let current;
    try {
      current = await getObjectBytes(client, bucket, stateKey);
    } catch (err) {
      throw describeS3Error(WHERE, 'GET', bucket, stateKey, err);
    }
    if (current !== null) {
      replacedStateKept = `${backupPrefix}replaced-state/${id}.${current.etag || 'no-etag'}.json`;
      try {
        await putIfAbsent(client, {
          Bucket: bucket,
          Key: replacedStateKept,
          Body: current.body,
          ContentType: 'application/json',
        });
      } catch (err) {
        if (!isConditionFailure(err)) throw describeS3Error(WHERE, 'PUT', bucket, replacedStateKept, err);
      }
    }
    const input = {
      Bucket: bucket,
      Key: stateKey,
      Body: loaded.state,
      ContentType: 'application/json; charset=utf-8',
      CacheControl: 'no-store',
    };
    try {
      if (current === null) await putIfAbsent(client, input);
      else await putIfMatch(client, input, current.etag);
    } catch (err) {
      if (isConditionFailure(err)) {
        throw new ConflictError(
          WHERE,
          `PUT s3://${bucket}/${stateKey}: the state changed while restoring ${id}; nothing was overwritten, try again`,
          { cause: err },
        );
      }
      throw describeS3Error(WHERE, 'PUT', bucket, stateKey, err);
    }
  }
  for (const [rel, body] of loaded.files) await writeFileAtomic(path.join(opts.dataDir, rel), body);
  return { ok: true, id, stateRestored: loaded.state !== null, files: loaded.files.size, replacedStateKept };
}

/** Complete snapshots (those with a manifest), oldest first. */
export async function listBackups(target: BackupTarget): Promise<string[]> {
  const { client, bucket, backupPrefix } = resolveTarget(target);
  const { prefixes } = await listKeys(client, bucket, backupPrefix, '/');
  const ids = prefixes.map((p) => p.slice(backupPrefix.length, -1)).filter((id) => BACKUP_ID.test(id));
  const complete = await Promise.all(
    ids.map(async (id) => {
      const { keys } = await listKeys(client, bucket, `${backupPrefix}${id}/${MANIFEST}`);
      return keys.length > 0 ? id : null;
    }),
  );
  return complete.filter((id): id is string => id !== null).sort();
}
