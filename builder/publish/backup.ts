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
import { unlessMissing } from '../fsutil/missing.ts';
import { assertSafeKey, isSafeKey } from '../fsutil/safe-key.ts';
import { getObject, listObjects, noStoreJson, putIf } from '../s3/client.ts';
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

const checksum = (b: Uint8Array) => ({ sha256: createHash('sha256').update(b).digest('hex'), bytes: b.byteLength });

function resolveTarget(t: BackupTarget) {
  const backupPrefix = t.backupPrefix ?? DEFAULT_BACKUP_PREFIX;
  if (!backupPrefix.endsWith('/'))
    throw new ConfigError(WHERE, `backup prefix must end in '/', got ${JSON.stringify(backupPrefix)}`);
  assertPrivateKey(backupPrefix, t.publicPrefix ?? '', WHERE);
  return {
    ...t,
    backupPrefix,
    stateKey: t.stateKey ?? DEFAULT_STATE_KEY,
    limit: pLimit(t.concurrency ?? DEFAULT_CONCURRENCY),
    get: async (key: string) => (await getObject(t.client, t.bucket, key, WHERE))?.body ?? null,
  };
}

/** Snapshots the state object and every file under `dataDir` as `<backupPrefix><id>/`. */
export async function createBackup(target: BackupTarget, opts: { dataDir: string; now: Date }) {
  const { client, bucket, backupPrefix, stateKey, limit, get } = resolveTarget(target);
  const id = opts.now.toISOString().slice(0, 19).replace(/:/g, '-') + 'Z';
  const base = `${backupPrefix}${id}/`;
  // Never overwrite: a snapshot is immutable, and an id taken twice in one second is an error.
  const exists = `a backup with id ${id} already exists`;
  const put = (key: string, body: Uint8Array, ContentType: string) =>
    putIf(client, { Bucket: bucket, Key: base + key, Body: body, ContentType }, null, WHERE, exists);

  const stateBytes = await get(stateKey);
  if (stateBytes !== null) await put(STATE_OBJECT, stateBytes, 'application/json');
  const files = (await unlessMissing(readdir(opts.dataDir, { recursive: true, withFileTypes: true }), []))
    .filter((e) => e.isFile())
    .map((e) => path.relative(opts.dataDir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
  const manifest: z.infer<typeof BackupManifestSchema> = {
    version: 1,
    id,
    created_at: opts.now.toISOString(),
    state_key: stateKey,
    state: stateBytes === null ? null : checksum(stateBytes),
    files: await limit.map(files, async (rel) => {
      assertSafeKey(rel);
      const body = new Uint8Array(await readFile(path.join(opts.dataDir, rel)));
      await put(DATA_DIR + rel, body, 'application/octet-stream');
      return { path: rel, ...checksum(body) };
    }),
  };
  await put(MANIFEST, Buffer.from(JSON.stringify(manifest, null, 2) + '\n'), 'application/json');
  const { created_at } = manifest;
  return { id, location: `s3://${bucket}/${base}`, created_at, files: files.length, state: stateBytes !== null };
}

/** Every object the manifest names, fetched and checked against its checksum, and what the snapshot holds beyond. */
async function loadSnapshot(target: BackupTarget, id: string) {
  if (!BACKUP_ID.test(id))
    throw new ConfigError(WHERE, `not a backup id: ${JSON.stringify(id)} (expected e.g. 2026-11-21T00-00-00Z)`);
  const { client, bucket, backupPrefix, limit, get } = resolveTarget(target);
  const base = `${backupPrefix}${id}/`;
  const problems: BackupProblem[] = [];
  const problem = (object: string, kind: BackupProblem['kind'], detail: string) =>
    void problems.push({ object, kind, detail });
  const files = new Map<string, Uint8Array>();
  const rawManifest = await get(base + MANIFEST);
  const parsed = rawManifest && parseJsonWith(rawManifest, BackupManifestSchema);
  const manifest = parsed?.ok && parsed.data.id === id ? parsed.data : null;
  let state: Uint8Array | null = null;
  if (parsed === null) {
    problem(MANIFEST, 'missing', `no s3://${bucket}/${base}${MANIFEST} (no such backup, or it never completed)`);
  } else if (manifest === null) {
    const detail = parsed.ok ? `the manifest is of backup ${JSON.stringify(parsed.data.id)}` : parsed.reason;
    problem(MANIFEST, 'manifest', detail);
  } else {
    /** The object's body when it matches its checksum; a problem recorded otherwise. */
    const fetchChecked = async (object: string, expected: { sha256: string; bytes: number }) => {
      const body = await get(base + object);
      if (body === null) {
        problem(object, 'missing', `s3://${bucket}/${base}${object} is listed in the manifest but does not exist`);
        return null;
      }
      const actual = checksum(body);
      if (actual.sha256 === expected.sha256 && actual.bytes === expected.bytes) return body;
      const detail = `sha256 ${actual.sha256} (${actual.bytes} bytes), manifest says ${expected.sha256} (${expected.bytes} bytes)`;
      problem(object, 'mismatch', detail);
      return null;
    };
    state = manifest.state === null ? null : await fetchChecked(STATE_OBJECT, manifest.state);
    await limit.map(manifest.files, async (f) => {
      const body = await fetchChecked(DATA_DIR + f.path, f);
      if (body !== null) files.set(f.path, body);
    });
    // A snapshot is immutable: anything added after the fact is suspect too.
    const expected = new Set([MANIFEST, ...manifest.files.map((f) => DATA_DIR + f.path)]);
    if (manifest.state !== null) expected.add(STATE_OBJECT);
    for (const key of (await listObjects(client, bucket, base, WHERE)).keys()) {
      const rel = key.slice(base.length);
      if (!expected.has(rel)) problem(rel, 'unexpected', `s3://${bucket}/${key} is not in the manifest`);
    }
  }
  problems.sort((a, b) => (a.object < b.object ? -1 : a.object > b.object ? 1 : 0));
  const checked = manifest === null ? 0 : manifest.files.length + (manifest.state !== null ? 1 : 0);
  return { report: { id, ok: problems.length === 0, checked, problems }, state, files };
}

/** Downloads every object of the snapshot and recomputes its checksum; lists every problem found. */
export const verifyBackup = async (target: BackupTarget, id: string) => (await loadSnapshot(target, id)).report;

/**
 * Restores a snapshot that verifies: the state object (conditionally, so a run that saved meanwhile is not
 * silently overwritten; the replaced state is kept next to the backups) and every data file. Files in
 * `dataDir` that the snapshot does not have are left alone. A snapshot that fails verification is refused.
 */
export async function restoreBackup(target: BackupTarget, id: string, opts: { dataDir: string }) {
  const { client, bucket, backupPrefix, stateKey } = resolveTarget(target);
  const { report, state, files } = await loadSnapshot(target, id);
  if (!report.ok) return { ok: false as const, id, problems: report.problems };

  let replacedStateKept: string | null = null;
  if (state !== null) {
    const current = await getObject(client, bucket, stateKey, WHERE);
    if (current !== null) {
      replacedStateKept = `${backupPrefix}replaced-state/${id}.${current.etag || 'no-etag'}.json`;
      const input = { Bucket: bucket, Key: replacedStateKept, Body: current.body, ContentType: 'application/json' };
      await putIf(client, input, null, WHERE);
    }
    const conflict = `the state changed while restoring ${id}; nothing was overwritten, try again`;
    await putIf(client, noStoreJson(bucket, stateKey, state), current?.etag ?? null, WHERE, conflict);
  }
  for (const [rel, body] of files) await writeFileAtomic(path.join(opts.dataDir, rel), body);
  return { ok: true as const, id, stateRestored: state !== null, files: files.size, replacedStateKept };
}

/** Complete snapshots (those with a manifest), oldest first. */
export async function listBackups(target: BackupTarget): Promise<string[]> {
  const { client, bucket, backupPrefix } = resolveTarget(target);
  return [...(await listObjects(client, bucket, backupPrefix, WHERE)).keys()]
    .map((k) => k.slice(backupPrefix.length).split('/'))
    .filter(([id, file, ...rest]) => file === MANIFEST && rest.length === 0 && BACKUP_ID.test(id!))
    .map(([id]) => id!)
    .sort();
}
