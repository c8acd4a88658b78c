// The one StateStore contract, run against every implementation (local directory, S3 object).
import { describe, expect, it } from 'vitest';
import { emptyState, type Signal, type State } from '../../builder/model/schemas.ts';
import { ConflictError } from '../../builder/errors.ts';
import { updateState, type StateStore } from '../../builder/state/store.ts';

export interface StateStoreHarness {
  store: StateStore;
  /** Another store on the same storage, as a concurrent run would build it. */
  another(): StateStore;
  /** Replaces the stored state with raw text, bypassing the store. */
  writeRaw(text: string): Promise<void>;
  /** Replaces the store's last good copy of the state with raw text. */
  writeRawCopy(text: string): Promise<void>;
  /** The contents of everything the store set aside as unusable. */
  keptAside(): Promise<string[]>;
}

const T0 = new Date('2026-11-21T00:00:00.000Z');

function signal(id: string): Signal {
  return {
    id,
    kind: 'feed_item',
    source: 'test',
    title: `signal ${id}`,
    excerpt: '',
    url: null,
    published_at: null,
    first_seen_at: T0.toISOString(),
    review: 'awaiting_review',
    promoted_to: null,
  };
}

const withSignal = (s: State, id: string): State => ({ ...s, signals: [...s.signals, signal(id)] });

export function stateStoreContract(label: string, setup: () => Promise<StateStoreHarness>): void {
  describe(`StateStore contract: ${label}`, () => {
    it('loads a clean state with no version when nothing was stored', async () => {
      const { store } = await setup();
      expect(await store.load()).toEqual({ state: emptyState(), version: null, warnings: [] });
    });

    it('loads what it saved, with the version save returned', async () => {
      const { store } = await setup();
      const state = withSignal(emptyState(), 'a');
      const version = await store.save(state, null);
      const loaded = await store.load();
      expect(loaded.state).toEqual(state);
      expect(loaded.version).toBe(version);
    });

    it('refuses a save based on an outdated version with ConflictError and keeps the newer state', async () => {
      const { store, another } = await setup();
      const v1 = await store.save(withSignal(emptyState(), 'a'), null);
      const newer = withSignal(withSignal(emptyState(), 'a'), 'b');
      await another().save(newer, v1);
      await expect(store.save(withSignal(emptyState(), 'stale'), v1)).rejects.toBeInstanceOf(ConflictError);
      await expect(store.save(withSignal(emptyState(), 'stale'), null)).rejects.toBeInstanceOf(ConflictError);
      expect((await store.load()).state).toEqual(newer);
    });

    it('lands every one of several concurrent updateState calls (no lost update)', async () => {
      const h = await setup();
      await h.store.save(emptyState(), null);
      const ids = ['a', 'b', 'c', 'd'];
      await Promise.all(ids.map((id) => updateState(h.another(), (s) => withSignal(s, id), 20)));
      expect((await h.store.load()).state.signals.map((s) => s.id).sort()).toEqual(ids);
    });

    it('gives the run lock to one owner at a time and to the next after release', async () => {
      const { store, another } = await setup();
      const a = await store.acquireLock('run-a', 60_000, T0);
      expect(a).toMatchObject({ owner: 'run-a', expiresAt: new Date(T0.getTime() + 60_000).toISOString(), run: 1 });
      expect(await another().acquireLock('run-b', 60_000, T0)).toBeNull();
      await store.releaseLock(a!);
      expect(await another().acquireLock('run-b', 60_000, T0)).toMatchObject({ owner: 'run-b' });
    });

    it('numbers the runs that take the lock: after a release or an expiry the next holder has a higher run number', async () => {
      const { store, another } = await setup();
      const a = (await store.acquireLock('run-a', 60_000, T0))!;
      await store.releaseLock(a);
      const b = (await another().acquireLock('run-b', 1_000, T0))!;
      const c = (await another().acquireLock('run-c', 60_000, new Date(T0.getTime() + 5_000)))!;
      expect([a.run, b.run, c.run]).toEqual([1, 2, 3]);
      expect(new Set([a.version, b.version, c.version]).size).toBe(3);
    });

    it('confirms the lock to its holder, and refuses with ConflictError once another run has taken it over', async () => {
      const { store, another } = await setup();
      const slow = (await store.acquireLock('slow', 1_000, T0))!;
      await store.confirmLock(slow);
      await store.confirmLock(slow);
      const fast = (await another().acquireLock('fast', 60_000, new Date(T0.getTime() + 5_000)))!;
      await expect(store.confirmLock(slow)).rejects.toBeInstanceOf(ConflictError);
      await another().confirmLock(fast);
      // The overtaken run's release leaves the new holder's lock alone, and it still proves it.
      await store.releaseLock(slow);
      await another().confirmLock(fast);
      await another().releaseLock(fast);
      await expect(another().confirmLock(fast)).rejects.toBeInstanceOf(ConflictError);
    });

    it('lets exactly one of several racing runs take a free lock', async () => {
      const { another } = await setup();
      const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((o) => another().acquireLock(o, 60_000, T0)));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    it('lets exactly one of several racing runs take over an expired lock', async () => {
      const { store, another } = await setup();
      expect(await store.acquireLock('crashed', 1_000, T0)).not.toBeNull();
      const later = new Date(T0.getTime() + 5_000);
      const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((o) => another().acquireLock(o, 60_000, later)));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    it('does not release a lock that another run has taken over since', async () => {
      const { store, another } = await setup();
      const old = await store.acquireLock('slow', 1_000, T0);
      const later = new Date(T0.getTime() + 5_000);
      expect(await another().acquireLock('fast', 60_000, later)).not.toBeNull();
      await store.releaseLock(old!);
      expect(await another().acquireLock('third', 60_000, later)).toBeNull();
    });

    it('sets a corrupt state aside, never losing it, and carries on from the last good copy', async () => {
      const h = await setup();
      const v1 = await h.store.save(withSignal(emptyState(), 'a'), null);
      await h.store.save({ ...withSignal(withSignal(emptyState(), 'a'), 'b'), updated_at: T0.toISOString() }, v1);
      await h.writeRaw('{"signals": not json');
      const loaded = await h.store.load();
      expect(loaded.state.signals.map((s) => s.id)).toEqual(['a', 'b']);
      expect(loaded.warnings.join('\n')).toMatch(
        /unusable \(not valid JSON.*kept it as .*carried on from the last good copy .*saved at 2026-11-21T00:00:00\.000Z/,
      );
      expect(await h.keptAside()).toContain('{"signals": not json');
      const version = await h.store.save(withSignal(loaded.state, 'c'), loaded.version);
      expect(await h.store.load()).toMatchObject({ version, warnings: [] });
    });

    it('starts clean, saying why, when the last good copy is unusable too', async () => {
      const h = await setup();
      await h.store.save(withSignal(emptyState(), 'a'), null);
      await h.writeRaw('{"signals": not json');
      await h.writeRawCopy('[]');
      const loaded = await h.store.load();
      expect(loaded.state).toEqual(emptyState());
      expect(loaded.warnings.join('\n')).toMatch(
        /unusable.*not valid JSON.*the last good copy is unusable too \(schema mismatch.*started from a clean state/,
      );
      expect(await h.keptAside()).toContain('{"signals": not json');
      const version = await h.store.save(withSignal(loaded.state, 'fresh'), loaded.version);
      expect(await h.store.load()).toMatchObject({ version, warnings: [] });
    });

    it('treats a state that fails the schema as corrupt', async () => {
      const h = await setup();
      await h.writeRaw(JSON.stringify({ schema_version: 99 }));
      const loaded = await h.store.load();
      expect(loaded.state).toEqual(emptyState());
      expect(loaded.warnings.join('\n')).toMatch(/schema mismatch.*there is no last good copy/);
    });
  });
}
