// The in-memory StateStore runs the same contract suite as the local and S3 stores, in milliseconds.
import { createMemoryStateStorage, createMemoryStateStore, writeRawState } from '../../builder/state/memory-store.ts';
import { stateStoreContract } from '../contracts/state-store.ts';

stateStoreContract('memory', async () => {
  const storage = createMemoryStateStorage();
  return {
    store: createMemoryStateStore(storage),
    another: () => createMemoryStateStore(storage),
    writeRaw: async (text) => writeRawState(storage, text),
    writeRawCopy: async (text) => {
      storage.lastGood = text;
    },
    keptAside: async () => [...storage.aside],
  };
});
