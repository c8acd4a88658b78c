// StateStore in memory: the shared store (conditional saves, last good copy, corrupt state set aside, run lock) on
// objects kept in a map, for tests and benches that need no disk or bucket. Several stores may share one
// `MemoryStateStorage`, as several runs share one bucket.
import { createHash } from 'node:crypto';
import { createStateStore, type StateStore } from '../../builder/state/store.ts';

export interface MemoryStateStorage {
  /** Object key (`state`, `last-good`, `lock`) → its text. */
  objects: Map<string, string>;
  /** Unusable state documents set aside, oldest first, each once. */
  aside: string[];
}

export function createMemoryStateStorage(): MemoryStateStorage {
  return { objects: new Map(), aside: [] };
}

export function createMemoryStateStore(storage: MemoryStateStorage = createMemoryStateStorage()): StateStore {
  const versionOf = (text: string) => createHash('sha256').update(text).digest('hex');
  const read = (key: string) => {
    const text = storage.objects.get(key);
    return text === undefined ? null : { body: Buffer.from(text), version: versionOf(text) };
  };
  return createStateStore(
    'memory',
    'state/memory',
    {
      name: (key) => `memory:${key}`,
      read: async (key) => read(key),
      // Compared and written in one synchronous step: no other write can come in between.
      writeIf: async (key, body, expected) => {
        if ((read(key)?.version ?? null) !== expected) return null;
        storage.objects.set(key, body);
        return versionOf(body);
      },
      write: async (key, body) => void storage.objects.set(key, body),
      setAside: async (key, stored) => {
        const text = Buffer.from(stored.body).toString('utf8');
        if (!storage.aside.includes(text)) storage.aside.push(text);
        return { name: `memory:${key}@${stored.version}`, version: stored.version };
      },
    },
    { state: 'state', lastGood: 'last-good', lock: 'lock' },
  );
}
