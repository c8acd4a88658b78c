import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyState } from '../../builder/model/schemas.ts';
import { createLocalStateStore } from '../../builder/state/local-store.ts';
import { ConflictError } from '../../builder/errors.ts';
import { updateState } from '../../builder/state/store.ts';
import { stateStoreContract } from '../contracts/state-store.ts';

const tmp = () => mkdtemp(path.join(tmpdir(), 'rsa-state-'));

// The local store's read-compare-write and its stale-lock takeover serialize through a mutex file; it serves
// single-process local runs and the tests.
stateStoreContract('local directory', async () => {
  const dir = await tmp();
  return {
    store: createLocalStateStore(dir, { now: () => new Date() }),
    another: () => createLocalStateStore(dir, { now: () => new Date() }),
    writeRaw: (text) => writeFile(path.join(dir, 'state.json'), text),
    writeRawCopy: (text) => writeFile(path.join(dir, 'state.last-good.json'), text),
    keptAside: async () =>
      Promise.all(
        (await readdir(dir))
          .filter((f) => f.startsWith('state.json.corrupt-'))
          .map((f) => readFile(path.join(dir, f), 'utf8')),
      ),
  };
});

describe('local state store', () => {
  it('starts clean when nothing is stored, and round-trips what it saved', async () => {
    const dir = await tmp();
    const store = createLocalStateStore(dir, { now: () => new Date() });
    const first = await store.load();
    expect(first).toMatchObject({ version: null, warnings: [] });
    const s = { ...emptyState(), updated_at: '2026-11-21T00:00:00.000Z' };
    const v = await store.save(s, null);
    const again = await store.load();
    expect(again.version).toBe(v);
    expect(again.state.updated_at).toBe('2026-11-21T00:00:00.000Z');
  });

  it('refuses a write based on an old version', async () => {
    const store = createLocalStateStore(await tmp(), { now: () => new Date() });
    const v1 = await store.save(emptyState(), null);
    await store.save({ ...emptyState(), updated_at: '2026-11-21T01:00:00.000Z' }, v1);
    await expect(store.save(emptyState(), v1)).rejects.toBeInstanceOf(ConflictError);
    await expect(store.save(emptyState(), null)).rejects.toBeInstanceOf(ConflictError);
  });

  it('sets a corrupt file aside with a clear warning and starts clean, never deleting it', async () => {
    for (const garbage of ['{"checks": [', '{"schema_version": 1, "checks": [{"source": 3}]}']) {
      const dir = await tmp();
      await writeFile(path.join(dir, 'state.json'), garbage);
      const store = createLocalStateStore(dir, { now: () => new Date('2026-11-21T12:34:56.789Z') });
      const loaded = await store.load();
      expect(loaded.version).toBeNull();
      expect(loaded.state).toEqual(emptyState());
      expect(loaded.warnings[0]).toMatch(/unusable .*kept it as .*corrupt/);
      // Named by the clock it is given.
      const aside = (await readdir(dir)).find((f) => f.includes('.corrupt-'));
      expect(aside).toBe('state.json.corrupt-2026-11-21T12-34-56-789Z');
      expect(await readFile(path.join(dir, aside!), 'utf8')).toBe(garbage);
      // The next run starts from the clean state and can save again: no crash loop.
      await store.save(loaded.state, loaded.version);
      expect((await store.load()).warnings).toEqual([]);
    }
  });

  it('leaves no temporary files behind after atomic writes', async () => {
    const dir = await tmp();
    const store = createLocalStateStore(dir, { now: () => new Date() });
    let v: string | null = null;
    for (let i = 0; i < 5; i++) v = await store.save({ ...emptyState(), updated_at: `2026-11-21T0${i}:00:00.000Z` }, v);
    expect((await readdir(dir)).sort()).toEqual(['state.json', 'state.last-good.json']);
    expect(await readFile(path.join(dir, 'state.last-good.json'), 'utf8')).toBe(
      await readFile(path.join(dir, 'state.json'), 'utf8'),
    );
  });

  it('updateState retries a lost race from a fresh read so no update is lost', async () => {
    const dir = await tmp();
    const store = createLocalStateStore(dir, { now: () => new Date() });
    const other = createLocalStateStore(dir, { now: () => new Date() });
    await store.save(emptyState(), null);
    const entry = {
      checkpoint: '2026-11-21T00:00:00.000Z',
      status: 'issued' as const,
      logged_at: '2026-11-21T00:05:00.000Z',
      forecast: {
        issued_at: '2026-11-20T23:50:00.000Z',
        model_version: 'm',
        probability_24h: 0.2,
        probability_48h: 0.3,
        base_rate_24h: 0.1,
        base_rate_48h: 0.2,
        trailing_base_rate_24h: null,
        trailing_base_rate_48h: null,
        trailing_90d_base_rate_24h: null,
        trailing_90d_base_rate_48h: null,
        sample_size: 12,
      },
    };
    let raced = false;
    // Another run writes between our read and our write, once.
    const racing = {
      ...store,
      async save(s: Parameters<typeof store.save>[0], v: string | null) {
        if (!raced) {
          raced = true;
          const cur = await other.load();
          await other.save({ ...cur.state, forecast_log: [entry] }, cur.version);
        }
        return store.save(s, v);
      },
    };
    let attempts = 0;
    const final = await updateState(racing, (s) => {
      attempts++;
      return { ...s, updated_at: '2026-11-21T02:00:00.000Z' };
    });
    expect(attempts).toBe(2);
    expect(final.forecast_log).toEqual([entry]);
    const stored = (await store.load()).state;
    expect(stored.forecast_log).toEqual([entry]);
    expect(stored.updated_at).toBe('2026-11-21T02:00:00.000Z');
  });

  it('gives the run lock to one owner until it expires or is released', async () => {
    const dir = await tmp();
    const a = createLocalStateStore(dir, { now: () => new Date() });
    const b = createLocalStateStore(dir, { now: () => new Date() });
    const t0 = new Date('2026-11-21T00:00:00Z');
    const la = await a.acquireLock('a', 60_000, t0);
    expect(la?.owner).toBe('a');
    expect(await b.acquireLock('b', 60_000, new Date(t0.getTime() + 59_000))).toBeNull();
    const lb = await b.acquireLock('b', 60_000, new Date(t0.getTime() + 61_000));
    expect(lb?.owner).toBe('b');
    await a.releaseLock(la!); // not a's any more: must not free b's lock
    expect(await a.acquireLock('c', 60_000, new Date(t0.getTime() + 62_000))).toBeNull();
    await b.releaseLock(lb!);
    expect(await a.acquireLock('c', 60_000, new Date(t0.getTime() + 63_000))).not.toBeNull();
  });
});
