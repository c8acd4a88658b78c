// How every sink takes a document stream: phase order, a bounded window, phase ends, stopping on a failure.
import { describe, expect, it } from 'vitest';
import { DataError } from '../../builder/errors.ts';
import type { DocumentStream } from '../../builder/publish/sink.ts';
import { consumeInPhases, type StreamWork } from '../../builder/publish/stream.ts';
import type { OutputDocument } from '../../builder/render/output.ts';

const doc = (key: string, phase = 0): OutputDocument => ({
  key,
  body: key,
  contentType: 'x',
  contentLanguage: null,
  cacheControl: 'c',
  phase,
});
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** The keys in the order consumeInPhases writes them, one at a time. */
async function collect(docs: DocumentStream, where = 'test'): Promise<string[]> {
  const keys: string[] = [];
  await consumeInPhases(docs, where, { concurrency: 1 }, { write: async (d) => void keys.push(d.key) });
  return keys;
}

/** Work that records what happened, each write taking `slow(doc)` turns of the event loop. */
function recorder(slow: (d: OutputDocument) => number = () => 3) {
  const log: string[] = [];
  const state = { running: 0, maxRunning: 0, finished: 0 };
  const work: StreamWork = {
    startPhase: async (p) => void log.push(`start ${p}`),
    endPhase: async (p) => void log.push(`end ${p}`),
    accept: () => {},
    write: async (d) => {
      state.maxRunning = Math.max(state.maxRunning, ++state.running);
      log.push(`write ${d.key}`);
      await turns(slow(d));
      log.push(`done ${d.key}`);
      state.running--;
      state.finished++;
    },
  };
  return { log, state, work };
}

describe('phase order', () => {
  it('sorts an array by phase, keeping the order within a phase, and leaves the array alone', async () => {
    const docs = [doc('c', 2), doc('a1'), doc('b', 1), doc('a2')];
    expect(await collect(docs)).toEqual(['a1', 'a2', 'b', 'c']);
    expect(docs.map((d) => d.key)).toEqual(['c', 'a1', 'b', 'a2']);
  });

  it('passes a stream through and refuses a lower phase after a higher one, naming both documents', async () => {
    expect(await collect([doc('a'), doc('b', 1), doc('c', 1)].values())).toEqual(['a', 'b', 'c']);
    const late = () => collect([doc('a'), doc('b', 2), doc('c', 1)].values(), 'publish/test');
    await expect(late()).rejects.toThrow(DataError);
    await expect(late()).rejects.toThrow(
      '[publish/test] "c" of phase 1 came after "b" of phase 2: a document stream must be in phase order',
    );
  });
});

describe('keys', () => {
  it('refuses an unsafe key and a second document for a key (DataError), and returns every key', async () => {
    await expect(collect([doc('a'), doc('../b')], 'publish/test')).rejects.toThrow(/unsafe object key "\.\.\/b"/);
    await expect(collect([doc('a'), doc('b'), doc('a', 1)], 'publish/test')).rejects.toThrow(
      /\[publish\/test\] the build has two documents for a/,
    );
    const work = { write: async () => {} };
    expect(await consumeInPhases([doc('b', 1), doc('a')], 'test', { concurrency: 2 }, work)).toEqual(
      new Set(['a', 'b']),
    );
  });
});

describe('consumeInPhases', () => {
  it('never has more than windowDocs documents taken and not finished, and fills the window when writes are slow', async () => {
    const W = 16;
    const { state, work } = recorder();
    let maxAhead = 0;
    function* docs() {
      for (let i = 0; i < 500; i++) {
        // Asked for document i: the sink holds i - finished documents besides it.
        maxAhead = Math.max(maxAhead, i - state.finished);
        yield doc(`d${i}`);
      }
    }
    await consumeInPhases(docs(), 'test', { windowDocs: W, concurrency: 4 }, work);
    expect(state.finished).toBe(500);
    expect(maxAhead).toBe(W - 1);
    expect(state.maxRunning).toBe(4);
  });

  it('holds the window with writes that finish at once, too (a sink finding everything unchanged)', async () => {
    const W = 8;
    const { state, work } = recorder(() => 0);
    let maxAhead = 0;
    async function* docs() {
      for (let i = 0; i < 300; i++) {
        maxAhead = Math.max(maxAhead, i - state.finished);
        yield doc(`d${i}`, Math.floor(i / 100));
      }
    }
    await consumeInPhases(docs(), 'test', { windowDocs: W, concurrency: 16 }, work);
    expect(state.finished).toBe(300);
    expect(maxAhead).toBeLessThan(W);
  });

  it('finishes a phase and awaits endPhase before starting the next, learning of the end from the next document', async () => {
    const { log, work } = recorder((d) => (d.key === 'a1' ? 20 : 1));
    await consumeInPhases(
      [doc('b1', 1), doc('a1'), doc('a2'), doc('c1', 3)],
      'test',
      { windowDocs: 8, concurrency: 4 },
      work,
    );
    expect(log).toEqual([
      'start 0',
      'write a1',
      'write a2',
      'done a2',
      'done a1',
      'end 0',
      'start 1',
      'write b1',
      'done b1',
      'end 1',
      'start 3',
      'write c1',
      'done c1',
      'end 3',
    ]);
  });

  it('after a failed write takes and starts nothing more, waits for the writes under way, closes the stream and throws the first failure', async () => {
    const { log, state, work } = recorder((d) => (d.key === 'd1' ? 1 : 10));
    const write = work.write;
    const broken = new Error('disk full');
    work.write = async (d) => {
      await write(d);
      if (d.key === 'd1') throw broken;
    };
    let taken = 0;
    let closed = false;
    function* docs() {
      try {
        for (let i = 0; i < 100; i++) {
          taken++;
          yield doc(`d${i}`);
        }
      } finally {
        closed = true;
      }
    }
    await expect(consumeInPhases(docs(), 'test', { windowDocs: 4, concurrency: 2 }, work)).rejects.toBe(broken);
    expect(closed).toBe(true);
    expect(taken).toBeLessThanOrEqual(5);
    expect(state.running).toBe(0);
    expect(log.filter((l) => l.startsWith('write'))).toEqual(['write d0', 'write d1']);
    expect(log).not.toContain('end 0');
  });

  it('stops on a refused document with nothing of it written, and on a failing stream with its own error', async () => {
    const { log, work } = recorder();
    work.accept = (d) => {
      if (d.key === 'bad') throw new DataError('test', 'refused');
    };
    await expect(
      consumeInPhases([doc('a'), doc('bad'), doc('c')], 'test', { windowDocs: 8, concurrency: 4 }, work),
    ).rejects.toThrow('refused');
    expect(log).toEqual(['start 0', 'write a', 'done a']);

    const again = recorder();
    const broken = new Error('render failed');
    async function* failing() {
      yield doc('a');
      throw broken;
    }
    await expect(consumeInPhases(failing(), 'test', { windowDocs: 8, concurrency: 4 }, again.work)).rejects.toBe(
      broken,
    );
    expect(again.log).toEqual(['start 0', 'write a', 'done a']);
  });

  it('publishes nothing and ends no phase for an empty stream', async () => {
    const { log, work } = recorder();
    await consumeInPhases([], 'test', { windowDocs: 8, concurrency: 4 }, work);
    expect(log).toEqual([]);
  });
});
