// The in-memory StateStore runs the same contract suite as the local and S3 stores, in milliseconds.
import { createMemoryStateStorage, createMemoryStateStore } from '../helpers/memory-store.ts';
import { stateStoreContract } from '../contracts/state-store.ts';

stateStoreContract('memory', async () => {
  const storage = createMemoryStateStorage();
  return {
    store: createMemoryStateStore(storage),
    another: () => createMemoryStateStore(storage),
    // Behind the store's back, as a hand edit or a corrupt write would.
    writeRaw: async (text) => void storage.objects.set('state', text),
    writeRawCopy: async (text) => void storage.objects.set('last-good', text),
    keptAside: async () => [...storage.aside],
  };
});
