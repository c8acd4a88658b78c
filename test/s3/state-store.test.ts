import { rm } from 'node:fs/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emptyState } from '../../builder/model/schemas.ts';
import { createS3StateStore } from '../../builder/state/s3-store.ts';
import { ConflictError } from '../../builder/errors.ts';
import { stateStoreContract } from '../contracts/state-store.ts';
import {
  createTestBucket,
  createTestClient,
  describeS3,
  listAllKeys,
  readText,
  removeTestBucket,
  writeText,
} from './helpers.ts';

const tmpDirs: string[] = [];
afterAll(async () => {
  for (const d of tmpDirs) await rm(d, { recursive: true, force: true });
});

describeS3('S3 state store (radosgw)', () => {
  let client: S3Client;
  let bucket: string;
  let n = 0;

  beforeAll(async () => {
    client = createTestClient();
    bucket = await createTestBucket(client, 'state');
  });
  afterAll(async () => {
    if (bucket) await removeTestBucket(client, bucket);
  });

  function harness() {
    const base = `t${++n}/`;
    const make = () =>
      createS3StateStore({
        client,
        bucket,
        key: `${base}state.json`,
        lockKey: `${base}run.lock`,
        backupPrefix: `${base}corrupt/`,
      });
    return {
      base,
      store: make(),
      another: make,
      writeRaw: (text: string) => writeText(client, bucket, `${base}state.json`, text),
      writeRawCopy: (text: string) => writeText(client, bucket, `${base}state.json.last-good`, text),
      keptAside: async () =>
        Promise.all(
          (await listAllKeys(client, bucket, `${base}corrupt/`)).map(
            async (k) => (await readText(client, bucket, k)) ?? '',
          ),
        ),
    };
  }

  stateStoreContract('S3 object', async () => harness());

  it('uses the bare ETag as the version and accepts a quoted one too', async () => {
    const h = harness();
    const v1 = await h.store.save(emptyState(), null);
    expect(v1).toMatch(/^[0-9a-f]{32}$/);
    const v2 = await h.store.save({ ...emptyState(), updated_at: '2026-11-21T00:00:00.000Z' }, `"${v1}"`);
    expect((await h.store.load()).version).toBe(v2);
  });

  it('turns a conditional write lost to another writer into ConflictError', async () => {
    const h = harness();
    const v1 = await h.store.save(emptyState(), null);
    const results = await Promise.allSettled(
      ['2026-11-21T00:00:01.000Z', '2026-11-21T00:00:02.000Z', '2026-11-21T00:00:03.000Z'].map((t) =>
        h.another().save({ ...emptyState(), updated_at: t }, v1),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConflictError);
  });

  it('keeps the state and lock outside the public prefix', () => {
    expect(() => createS3StateStore({ client, bucket, key: 'api/state.json' })).toThrow(/public API root/);
    expect(() => createS3StateStore({ client, bucket, key: 'site/state.json', publicPrefix: 'site/' })).toThrow(
      /public prefix/,
    );
  });

  it('keeps one copy of a corrupt object however often it is loaded', async () => {
    const h = harness();
    await h.writeRaw('garbage');
    const first = await h.store.load();
    const second = await h.another().load();
    expect(first.warnings).toHaveLength(1);
    expect(second.version).toBe(first.version);
    expect(await h.keptAside()).toEqual(['garbage']);
  });
});
