import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createBackup,
  listBackups,
  restoreBackup,
  verifyBackup,
  type BackupTarget,
} from '../../builder/publish/backup.ts';
import {
  createTestBucket,
  createTestClient,
  describeS3,
  listAllKeys,
  readText,
  removeTestBucket,
  writeText,
} from './helpers.ts';

describeS3('backups (radosgw)', () => {
  let client: S3Client;
  let bucket: string;
  let target: BackupTarget;
  const dirs: string[] = [];
  let n = 0;

  beforeAll(async () => {
    client = createTestClient();
    bucket = await createTestBucket(client, 'backup');
    target = { client, bucket, backupPrefix: 'backups/', stateKey: 'state/state.json', publicPrefix: '' };
  });
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
    if (bucket) await removeTestBucket(client, bucket);
  });

  async function dataDir(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'reset-data-'));
    dirs.push(dir);
    await mkdir(path.join(dir, 'verified'), { recursive: true });
    await writeFile(path.join(dir, 'README.md'), '# curated data\n');
    await writeFile(path.join(dir, 'verified', '2026-11-20-reset.json'), '{"id":"2026-11-20-reset"}\n');
    return dir;
  }
  const at = () => new Date(Date.UTC(2026, 10, 21, 0, 0, ++n));

  it('round-trips the state object and every data file, with checksums', async () => {
    const data = await dataDir();
    await writeText(client, bucket, 'state/state.json', '{"schema_version":1,"marker":"before"}');
    const b = await createBackup(target, { dataDir: data, now: at() });
    expect(b).toMatchObject({ id: expect.stringMatching(/^2026-11-21T00-00-\d\dZ$/), files: 2, state: true });
    expect(b.location).toBe(`s3://${bucket}/backups/${b.id}/`);
    expect(await verifyBackup(target, b.id)).toEqual({ id: b.id, ok: true, checked: 3, problems: [] });
    expect(await listBackups(target)).toContain(b.id);
    const manifest = JSON.parse((await readText(client, bucket, `backups/${b.id}/manifest.json`))!);
    expect(manifest.files.map((f: { path: string }) => f.path)).toEqual([
      'README.md',
      'verified/2026-11-20-reset.json',
    ]);
    expect(manifest.files[0].sha256).toMatch(/^[0-9a-f]{64}$/);

    // Damage both sides, then restore.
    await writeText(client, bucket, 'state/state.json', '{"schema_version":1,"marker":"after"}');
    await writeFile(path.join(data, 'verified', '2026-11-20-reset.json'), 'edited');
    await rm(path.join(data, 'README.md'));
    const restored = await restoreBackup(target, b.id, { dataDir: data });
    expect(restored).toMatchObject({ ok: true, stateRestored: true, files: 2 });
    expect(await readText(client, bucket, 'state/state.json')).toBe('{"schema_version":1,"marker":"before"}');
    expect(await readFile(path.join(data, 'README.md'), 'utf8')).toBe('# curated data\n');
    expect(await readFile(path.join(data, 'verified', '2026-11-20-reset.json'), 'utf8')).toBe(
      '{"id":"2026-11-20-reset"}\n',
    );
    // The state it replaced is kept, not lost.
    const kept = restored.ok ? restored.replacedStateKept : null;
    expect(kept).not.toBeNull();
    expect(await readText(client, bucket, kept!)).toBe('{"schema_version":1,"marker":"after"}');
  });

  it('detects a tampered object and a missing one, and restore refuses that snapshot', async () => {
    const data = await dataDir();
    await writeText(client, bucket, 'state/state.json', '{"schema_version":1,"marker":"current"}');
    const b = await createBackup(target, { dataDir: data, now: at() });
    await writeText(client, bucket, `backups/${b.id}/data/README.md`, '# tampered\n');
    await client.send(
      new (await import('@aws-sdk/client-s3')).DeleteObjectCommand({
        Bucket: bucket,
        Key: `backups/${b.id}/state.json`,
      }),
    );
    await writeText(client, bucket, `backups/${b.id}/data/extra.json`, '{}');

    const report = await verifyBackup(target, b.id);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => [p.kind, p.object])).toEqual([
      ['mismatch', 'data/README.md'],
      ['unexpected', 'data/extra.json'],
      ['missing', 'state.json'],
    ]);
    await writeFile(path.join(data, 'README.md'), 'local edit');
    const restored = await restoreBackup(target, b.id, { dataDir: data });
    expect(restored.ok).toBe(false);
    expect(await readFile(path.join(data, 'README.md'), 'utf8')).toBe('local edit');
    expect(await readText(client, bucket, 'state/state.json')).toBe('{"schema_version":1,"marker":"current"}');
  });

  it('reports a backup that does not exist, and never overwrites an existing snapshot', async () => {
    expect(await verifyBackup(target, '2001-01-01T00-00-00Z')).toMatchObject({
      ok: false,
      problems: [{ kind: 'missing', object: 'manifest.json' }],
    });
    const data = await dataDir();
    const now = at();
    await createBackup(target, { dataDir: data, now });
    await expect(createBackup(target, { dataDir: data, now })).rejects.toThrow(/already exists/);
    await expect(verifyBackup(target, '../state')).rejects.toThrow(/not a backup id/);
  });

  it('refuses a backup prefix under the public API', async () => {
    const data = await dataDir();
    await expect(
      createBackup({ ...target, backupPrefix: 'api/backups/' }, { dataDir: data, now: at() }),
    ).rejects.toThrow(/public API root/);
    await expect(
      createBackup({ ...target, publicPrefix: 'site/', backupPrefix: 'site/b/' }, { dataDir: data, now: at() }),
    ).rejects.toThrow(/public prefix/);
    expect((await listAllKeys(client, bucket)).some((k) => k.startsWith('api/') || k.startsWith('site/'))).toBe(false);
  });
});
