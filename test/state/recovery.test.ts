// State loading with recovery, shared by every store, on storage that records what it is asked.
import { describe, expect, it } from 'vitest';
import { emptyState } from '../../builder/model/schemas.ts';
import { createStateStore } from '../../builder/state/store.ts';

const good = JSON.stringify({ ...emptyState(), updated_at: '2026-11-21T00:00:00.000Z' });

/** A load of `text` (at S) from storage whose last good copy (at L) is `lastGood`; `setAside` records each call. */
function load(text: string | null, lastGood: string | null = null) {
  const asides: string[] = [];
  const stored: Record<string, string | null> = { S: text, L: lastGood };
  const store = createStateStore(
    'test',
    'state/test',
    {
      name: (key) => key,
      read: async (key) => (stored[key] == null ? null : { body: Buffer.from(stored[key]), version: 'v1' }),
      writeIf: async () => null,
      write: async () => {},
      setAside: async (_key, s) => {
        asides.push(Buffer.from(s.body).toString('utf8'));
        return { name: 'A', version: 'v0' };
      },
    },
    { state: 'S', lastGood: 'L', lock: 'K' },
  );
  return { loaded: store.load(), asides };
}

describe('state recovery', () => {
  it('loads nothing stored as a clean state, a usable one with its version, and sets nothing aside', async () => {
    const empty = load(null);
    expect(await empty.loaded).toEqual({ state: emptyState(), version: null, warnings: [] });
    const ok = load(good);
    expect(await ok.loaded).toMatchObject({ state: { updated_at: '2026-11-21T00:00:00.000Z' }, version: 'v1' });
    expect([...empty.asides, ...ok.asides]).toEqual([]);
  });

  it('carries on from the last good copy, saying where the unusable one was kept', async () => {
    const r = load('{', good);
    const loaded = await r.loaded;
    expect(r.asides).toEqual(['{']);
    expect(loaded.state.updated_at).toBe('2026-11-21T00:00:00.000Z');
    expect(loaded.version).toBe('v0');
    expect(loaded.warnings).toEqual([
      expect.stringMatching(
        /^\[state\/test\] S is unusable \(not valid JSON \(.*\)\); kept it as A and carried on from the last good copy L \(saved at 2026-11-21T00:00:00\.000Z\)$/,
      ),
    ]);
  });

  it('starts clean when there is no last good copy, or it is unusable too', async () => {
    const none = await load('[]').loaded;
    expect(none).toMatchObject({ state: emptyState(), version: 'v0' });
    expect(none.warnings[0]).toMatch(
      /S is unusable \(schema mismatch at \(root\).*there is no last good copy, so this run started from a clean state$/,
    );
    expect((await load('[]', '[]').loaded).warnings[0]).toMatch(/the last good copy is unusable too \(schema mismatch/);
  });
});
