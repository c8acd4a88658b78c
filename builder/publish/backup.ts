// Dated snapshots of the state object and the curated data/ directory, with SHA-256 checksums, under a private
// prefix. A snapshot is complete when its manifest.json exists (written last); it is never modified afterwards.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { writeFileAtomic } from '../fsutil/atomic.ts';
import { parseJsonWith } from '../fsutil/json.ts';
import { assertSafeKey, isSafeKey } from '../fsutil/safe-key.ts';
import { getObject, listObjects, putIf } from '../s3/client.ts';
import { DEFAULT_BACKUP_PREFIX, DEFAULT_CONCURRENCY, DEFAULT_STATE_KEY, assertPrivateKey } from '../s3/config.ts';

const WHERE = 'publish/backup';
const MANIFEST = 'manifest.json';
const STATE_OBJECT = 'state.json';
const DATA_DIR = 'data/';
/** Snapshot ids are UTC instants with ':' replaced, so they sort by time and are safe in keys and paths. */
const BACKUP_ID = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z$/;

const Checksum = z.object({ sha256: z.string(), bytes: z.number() });
const BackupManifestSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  created_at: z.string(),
  state_key: z.string(),
  /** null when there was no state object to back up. */
  state: Checksum.nullable(),
  /** Paths relative to the data directory, '/'-separated. */
  files: z.array(Checksum.extend({ path: z.string().refine(isSafeKey, 'unsafe file path') })),
});
type BackupManifest = z.infer<typeof BackupManifestSchema>;

export interface BackupProblem {
  /** `state.json`, `data/<path>` or `manifest.json` */
  object: string;
  kind: 'missing' | 'mismatch' | 'unexpected' | 'manifest';
  detail: string;
}

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

export const backupIdFor = (at: Date): string =>
  at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function resolveTarget(t: BackupTarget) {
  const backupPrefix = t.backupPrefix ?? DEFAULT_BACKUP_PREFIX;
  if (!backupPrefix.endsWith('/'))
    throw new ConfigError(WHERE, `backup prefix must end in '/', got ${JSON.stringify(backupPrefix)}`);
  assertPrivateKey(backupPrefix, t.publicPrefix ?? '', WHERE);
  const { client, bucket } = t;
  return {
    client,
    bucket,
    backupPrefix,
    stateKey: t.stateKey ?? DEFAULT_STATE_KEY,
    limit: pLimit(t.concurrency ?? DEFAULT_CONCURRENCY),
    get: async (key: string) => (await getObject(client, bucket, key, WHERE))?.body ?? null,
  };
}

/** Every file under `root` (none when it does not exist), relative and '/'-separated, sorted. */
async function listDataFiles(root: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(root, { recursive: true, withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const rel = (e: (typeof entries)[number]) => path.relative(root, path.join(e.parentPath, e.name));
  return entries
    .filter((e) => e.isFile())
    .map((e) => rel(e).split(path.sep).join('/'))
    .sort(byName);
}

/** Snapshots the state object and every file under `dataDir` as `<backupPrefix><id>/`. */
export async function createBackup(target: BackupTarget, opts: { dataDir: string; now: Date }) {
  const { client, bucket, backupPrefix, stateKey, limit, get } = resolveTarget(target);
  const id = backupIdFor(opts.now);
  const base = `${backupPrefix}${id}/`;
  // Never overwrite: a snapshot is immutable, and an id taken twice in one second is an error.
  const put = (key: string, body: Uint8Array, contentType: string) =>
    putIf(
      client,
      { Bucket: bucket, Key: key, Body: body, ContentType: contentType },
      null,
      WHERE,
      `a backup with id ${id} already exists`,
    );

  const stateBytes = await get(stateKey);
  if (stateBytes !== null) await put(base + STATE_OBJECT, stateBytes, 'application/json');
  const files = await listDataFiles(opts.dataDir);
  const entries = await Promise.all(
    files.map((rel) =>
      limit(async () => {
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

/** The snapshot's manifest, or why it cannot be trusted. */
function parseManifest(bytes: Uint8Array, id: string): BackupManifest | string {
  const r = parseJsonWith(Buffer.from(bytes).toString('utf8'), BackupManifestSchema);
  if (!r.ok) return r.reason;
  return r.data.id === id ? r.data : `the manifest is of backup ${JSON.stringify(r.data.id)}`;
}

/** Every object the manifest names, fetched and checked against its checksum, and what the snapshot holds beyond. */
async function loadSnapshot(target: BackupTarget, id: string) {
  if (!BACKUP_ID.test(id))
    throw new ConfigError(WHERE, `not a backup id: ${JSON.stringify(id)} (expected e.g. 2026-11-21T00-00-00Z)`);
  const { client, bucket, backupPrefix, limit, get } = resolveTarget(target);
  const base = `${backupPrefix}${id}/`;
  const problems: BackupProblem[] = [];
  const files = new Map<string, Uint8Array>();
  const done = (manifest: BackupManifest | null, state: Uint8Array | null = null) => {
    problems.sort((a, b) => byName(a.object, b.object));
    const checked = manifest === null ? 0 : manifest.files.length + (manifest.state !== null ? 1 : 0);
    return { report: { id, ok: problems.length === 0, checked, problems }, manifest, state, files };
  };
  const rawManifest = await get(base + MANIFEST);
  const manifest =
    rawManifest === null
      ? `no s3://${bucket}/${base}${MANIFEST} (no such backup, or it never completed)`
      : parseManifest(rawManifest, id);
  if (typeof manifest === 'string') {
    problems.push({ object: MANIFEST, kind: rawManifest === null ? 'missing' : 'manifest', detail: manifest });
    return done(null);
  }
  /** The object's body when it matches its checksum; a problem recorded otherwise. */
  const fetchChecked = async (object: string, expected: { sha256: string; bytes: number }) => {
    const body = await get(base + object);
    const actual = body && sha256(body);
    if (body === null) {
      const detail = `s3://${bucket}/${base}${object} is listed in the manifest but does not exist`;
      problems.push({ object, kind: 'missing', detail });
    } else if (actual !== expected.sha256 || body.byteLength !== expected.bytes) {
      const detail = `sha256 ${actual} (${body.byteLength} bytes), manifest says ${expected.sha256} (${expected.bytes} bytes)`;
      problems.push({ object, kind: 'mismatch', detail });
    } else return body;
    return null;
  };
  const state = manifest.state === null ? null : await fetchChecked(STATE_OBJECT, manifest.state);
  await Promise.all(
    manifest.files.map((f) =>
      limit(async () => {
        const body = await fetchChecked(DATA_DIR + f.path, f);
        if (body !== null) files.set(f.path, body);
      }),
    ),
  );
  // A snapshot is immutable: anything added after the fact is suspect too.
  const expected = new Set([MANIFEST, ...manifest.files.map((f) => DATA_DIR + f.path)]);
  if (manifest.state !== null) expected.add(STATE_OBJECT);
  for (const key of (await listObjects(client, bucket, base, WHERE)).keys()) {
    const rel = key.slice(base.length);
    if (!expected.has(rel))
      problems.push({ object: rel, kind: 'unexpected', detail: `s3://${bucket}/${key} is not in the manifest` });
  }
  return done(manifest, state);
}

/** Downloads every object of the snapshot and recomputes its checksum; lists every problem found. */
export async function verifyBackup(target: BackupTarget, id: string) {
  return (await loadSnapshot(target, id)).report;
}

/**
 * Restores a snapshot that verifies: the state object (conditionally, so a run that saved meanwhile is not
 * silently overwritten; the replaced state is kept next to the backups) and every data file. Files in
 * `dataDir` that the snapshot does not have are left alone. A snapshot that fails verification is refused.
 */
export async function restoreBackup(target: BackupTarget, id: string, opts: { dataDir: string }) {
  const { client, bucket, backupPrefix, stateKey } = resolveTarget(target);
  const loaded = await loadSnapshot(target, id);
  if (!loaded.report.ok || loaded.manifest === null)
    return { ok: false as const, id, problems: loaded.report.problems };

  let replacedStateKept: string | null = null;
  if (loaded.state !== null) {
    const current = await getObject(client, bucket, stateKey, WHERE);
    if (current !== null) {
      replacedStateKept = `${backupPrefix}replaced-state/${id}.${current.etag || 'no-etag'}.json`;
      const input = { Bucket: bucket, Key: replacedStateKept, Body: current.body, ContentType: 'application/json' };
      await putIf(client, input, null, WHERE);
    }
    const input = {
      Bucket: bucket,
      Key: stateKey,
      Body: loaded.state,
      ContentType: 'application/json; charset=utf-8',
      CacheControl: 'no-store',
    };
    const conflict = `the state changed while restoring ${id}; nothing was overwritten, try again`;
    await putIf(client, input, current?.etag ?? null, WHERE, conflict);
  }
  for (const [rel, body] of loaded.files) await writeFileAtomic(path.join(opts.dataDir, rel), body);
  return { ok: true as const, id, stateRestored: loaded.state !== null, files: loaded.files.size, replacedStateKept };
}

/** Complete snapshots (those with a manifest), oldest first. */
export async function listBackups(target: BackupTarget): Promise<string[]> {
  const { client, bucket, backupPrefix } = resolveTarget(target);
  const keys = (await listObjects(client, bucket, backupPrefix, WHERE)).keys();
  const ids = [...keys].map((k) => k.slice(backupPrefix.length).split('/'));
  return ids
    .filter(([id, f, ...rest]) => f === MANIFEST && rest.length === 0 && BACKUP_ID.test(id!))
    .map(([id]) => id!)
    .sort();
}
