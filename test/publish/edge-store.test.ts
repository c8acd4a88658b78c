// One contract for every edge store: the local file the preview reads and the CloudFront KeyValueStore (through the
// real AWS SDK client, SigV4A-signed, against the KeyValueStore API served on loopback).
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kvsClientConfig } from '../helpers/kvs-server.ts';
import { EDGE_STORE_FILE } from '../../builder/contract.ts';
import { edgeStoreEntries } from '../../builder/model/freshness.ts';
import { createLocalEdgeStore, planEdgeStore, type EdgeStore } from '../../builder/publish/edge-store.ts';
import { KVS_BATCH, createKvsEdgeStore } from '../../builder/publish/kvs-edge-store.ts';
import { startKvsServer, type KvsServer } from '../helpers/kvs-server.ts';

const FRESH = {
  stale_after: '2026-11-21T12:30:00.000Z',
  build_date: '2026-11-21',
  next_date: '2026-11-22',
  variant_dates: ['2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24'],
  forecast_stale_after: '2026-11-21T13:00:00.000Z',
};
const ids = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `2026-11-${String(((i + from) % 28) + 1).padStart(2, '0')}-reset-${i + from}`);

let kvs: KvsServer;
beforeAll(async () => {
  kvs = await startKvsServer();
});
afterAll(async () => kvs.close());

const implementations: [string, () => Promise<EdgeStore>][] = [
  ['local file', async () => createLocalEdgeStore(await mkdtemp(path.join(tmpdir(), 'rsa-edge-store-')))],
  [
    'CloudFront KeyValueStore',
    async () => {
      kvs.data.clear();
      return createKvsEdgeStore({
        arn: kvs.arn,
        clientConfig: kvsClientConfig(kvs),
      });
    },
  ],
];

describe.each(implementations)('edge store: %s', (_name, create) => {
  it('starts empty, then holds exactly what was written', async () => {
    const store = await create();
    expect(await store.read()).toEqual({});
    const entries = edgeStoreEntries(FRESH, ids(3));
    const r = await store.write(entries);
    expect(r).toMatchObject({ put: 4, deleted: 0, unchanged: 0 });
    expect(await store.read()).toEqual(entries);
  });

  it('puts only what changed and deletes ids the build no longer has', async () => {
    const store = await create();
    await store.write(edgeStoreEntries(FRESH, ids(5)));
    const next = edgeStoreEntries({ ...FRESH, stale_after: '2026-11-21T12:45:00.000Z' }, [...ids(4), 'new-event']);
    const r = await store.write(next);
    expect(r).toMatchObject({ put: 2, deleted: 1, unchanged: 4 });
    expect(await store.read()).toEqual(next);
  });

  it('an idle rewrite changes nothing', async () => {
    const store = await create();
    const entries = edgeStoreEntries(FRESH, ids(2));
    await store.write(entries);
    expect(await store.write(entries)).toMatchObject({ put: 0, deleted: 0, unchanged: 3 });
  });

  it('holds more keys than one page or one update call', async () => {
    const store = await create();
    const entries = edgeStoreEntries(FRESH, ids(KVS_BATCH * 2 + 7));
    await store.write(entries);
    expect(Object.keys(await store.read())).toHaveLength(KVS_BATCH * 2 + 8);
    expect(await store.read()).toEqual(entries);
  });
});

describe('KeyValueStore writer', () => {
  const store = () =>
    createKvsEdgeStore({
      arn: kvs.arn,
      clientConfig: kvsClientConfig(kvs),
    });

  it('plans again when another writer moved the ETag, and still ends with exactly its entries', async () => {
    kvs.data.clear();
    const s = store();
    await s.write(edgeStoreEntries(FRESH, ids(2)));
    // Another writer adds a key between this writer's read and its UpdateKeys: that call fails on the ETag, and the
    // retry plans from what is there now, so the stray key is deleted.
    kvs.beforeNextUpdate(() => kvs.data.set('stray', 'x'));
    kvs.calls.length = 0;
    const entries = edgeStoreEntries({ ...FRESH, build_date: '2026-11-22', next_date: '2026-11-23' }, ids(2));
    expect(await s.write(entries)).toMatchObject({ put: 1, deleted: 1 });
    expect(Object.fromEntries(kvs.data)).toEqual(entries);
    expect(kvs.calls.filter((c) => c.startsWith('POST'))).toHaveLength(2);
  });

  it('names the store and the call when the API refuses', async () => {
    const s = createKvsEdgeStore({
      arn: kvs.arn.replace(/[0-9a-f-]{36}$/, '00000000-0000-0000-0000-000000000000'),
      clientConfig: kvsClientConfig(kvs),
    });
    await expect(s.write({ a: '1' })).rejects.toThrow(
      /\[publish\/kvs-edge-store\] DescribeKeyValueStore arn:aws:cloudfront::123456789012:key-value-store\/0{8}-.*ResourceNotFoundException/,
    );
  });
});

describe('local edge store file', () => {
  it('is flat, sorted JSON next to the build, and refuses a file that is not a string map', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rsa-edge-store-'));
    await createLocalEdgeStore(dir).write({ b: '2', a: '1' });
    expect(await readFile(path.join(dir, EDGE_STORE_FILE), 'utf8')).toBe('{\n  "a": "1",\n  "b": "2"\n}\n');
    await writeFile(path.join(dir, EDGE_STORE_FILE), '{"a": 1}');
    await expect(createLocalEdgeStore(dir).read()).rejects.toThrow(/is not a flat string map: schema mismatch at a: /);
  });
});

describe('planEdgeStore', () => {
  it('is independent of the order the store listed its keys in', () => {
    expect(planEdgeStore({ c: '1', a: '0' }, { a: '1', b: '1' })).toEqual({
      puts: [
        { key: 'a', value: '1' },
        { key: 'b', value: '1' },
      ],
      deletes: ['c'],
      unchanged: 0,
    });
  });
});
