// The backup snapshot's layout and manifest: pure, shared by creating, verifying and restoring (backup.ts).
import { ConfigError } from '../errors.ts';
import { isSafeKey } from '../fsutil/safe-key.ts';

export interface BackupFileEntry {
  /** Path relative to the data directory, '/'-separated. */
  path: string;
  sha256: string;
  bytes: number;
}

export interface BackupManifest {
  version: 1;
  id: string;
  created_at: string;
  state_key: string;
  /** null when there was no state object to back up. */
  state: { sha256: string; bytes: number } | null;
  files: BackupFileEntry[];
}

export interface BackupSummary {
  id: string;
  /** `s3://bucket/backups/<id>/` */
  location: string;
  created_at: string;
  files: number;
  state: boolean;
}

export interface BackupProblem {
  /** `state.json`, `data/<path>` or `manifest.json` */
  object: string;
  kind: 'missing' | 'mismatch' | 'unexpected' | 'manifest';
  detail: string;
}

export interface VerifyReport {
  id: string;
  ok: boolean;
  checked: number;
  problems: BackupProblem[];
}

export type RestoreResult =
  | { ok: true; id: string; stateRestored: boolean; files: number; replacedStateKept: string | null }
  | { ok: false; id: string; problems: BackupProblem[] };

export const MANIFEST = 'manifest.json';
export const STATE_OBJECT = 'state.json';
export const DATA_DIR = 'data/';
/** Snapshot ids are UTC instants with ':' replaced, so they sort by time and are safe in keys and paths. */
export const BACKUP_ID = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z$/;
export const WHERE = 'publish/backup';

export const backupIdFor = (at: Date): string =>
  at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');

export function assertBackupId(id: string): void {
  if (!BACKUP_ID.test(id))
    throw new ConfigError(WHERE, `not a backup id: ${JSON.stringify(id)} (expected e.g. 2026-11-21T00-00-00Z)`);
}

/** The snapshot's manifest, or why it cannot be trusted. */
export function parseManifest(bytes: Uint8Array, id: string): BackupManifest | string {
  let raw: Partial<BackupManifest>;
  try {
    raw = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<BackupManifest>;
  } catch (err) {
    return `not valid JSON (${(err as Error).message})`;
  }
  if (
    raw.version !== 1 ||
    raw.id !== id ||
    !Array.isArray(raw.files) ||
    typeof raw.state_key !== 'string' ||
    typeof raw.created_at !== 'string'
  ) {
    return 'missing or wrong version, id, state_key, created_at or files';
  }
  for (const f of raw.files) {
    if (typeof f?.path !== 'string' || typeof f.sha256 !== 'string' || typeof f.bytes !== 'number')
      return 'a files entry lacks path, sha256 or bytes';
    if (!isSafeKey(f.path)) return `unsafe file path ${JSON.stringify(f.path)}`;
  }
  if (raw.state !== null && (typeof raw.state?.sha256 !== 'string' || typeof raw.state.bytes !== 'number'))
    return 'state entry lacks sha256 or bytes';
  return raw as BackupManifest;
}
