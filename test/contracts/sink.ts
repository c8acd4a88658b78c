// The one Sink contract, run against every implementation (local directory, S3).
import { describe, expect, it } from 'vitest';
import { DataError } from '../../builder/errors.ts';
import type { Sink } from '../../builder/publish/sink.ts';
import { PHASE, type OutputDocument } from '../../builder/render/output.ts';

export interface SinkHarness {
  sink: Sink;
  /** The published body at `key`, or null when there is none. */
  read(key: string): Promise<string | null>;
  /** Moves the sink's clock forward. */
  advance(ms: number): void;
  /** How long a dropped document may stay (0 for sinks that delete at once). */
  deleteAfterMs: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const CACHE = 'public, max-age=30';

export function doc(key: string, body: unknown, phase: number, contentLanguage: string | null = 'en'): OutputDocument {
  return { key, body: JSON.stringify(body), contentType: JSON_TYPE, contentLanguage, cacheControl: CACHE, phase };
}

/** A small build in every phase; `rev` changes the bodies of the documents that depend on it. */
export function sampleBuild(rev: number, opts: { latestRev?: number } = {}): OutputDocument[] {
  return [
    doc('api/en/events/r-1.json', { id: 'r-1', title: 'first' }, PHASE.leaves),
    doc('api/de/events/r-1.json', { id: 'r-1', title: 'erste' }, PHASE.leaves, 'de'),
    doc(`api/en/events/r-${rev + 1}.json`, { id: `r-${rev + 1}` }, PHASE.leaves),
    doc('api/en/history.json', { items: ['r-1', `r-${rev + 1}`] }, PHASE.lists),
    doc('api/en/latest.json', { rev: opts.latestRev ?? rev }, PHASE.summaries),
    doc('api/de/latest.json', { rev: opts.latestRev ?? rev }, PHASE.summaries, 'de'),
    doc('api/openapi.json', { openapi: '3.1.0' }, PHASE.schemas, null),
  ];
}

/** The documents in phase order (stable), as a stream must come. */
export const byPhase = (docs: readonly OutputDocument[]): OutputDocument[] =>
  [...docs].sort((a, b) => a.phase - b.phase);

/** The documents as an async stream, each yielded on a later turn of the event loop. */
export async function* stream(docs: Iterable<OutputDocument>): AsyncGenerator<OutputDocument> {
  for (const d of docs) {
    await new Promise((r) => setImmediate(r));
    yield d;
  }
}

export function sinkContract(label: string, setup: () => Promise<SinkHarness>): void {
  describe(`Sink contract: ${label}`, () => {
    it('publishes every document with its exact body', async () => {
      const h = await setup();
      const build = sampleBuild(1);
      const report = await h.sink.publish(build);
      expect(report).toMatchObject({ target: h.sink.name, written: build.length, unchanged: 0, deleted: 0 });
      for (const d of build) expect(await h.read(d.key)).toBe(d.body);
    });

    it('writes nothing when the build has not changed', async () => {
      const h = await setup();
      await h.sink.publish(sampleBuild(1));
      const again = await h.sink.publish(sampleBuild(1));
      expect(again).toMatchObject({ written: 0, unchanged: sampleBuild(1).length, deleted: 0, pendingDelete: 0 });
    });

    it('writes only the documents that changed', async () => {
      const h = await setup();
      await h.sink.publish(sampleBuild(1));
      const changed = sampleBuild(1, { latestRev: 2 });
      const report = await h.sink.publish(changed);
      expect(report).toMatchObject({ written: 2, unchanged: changed.length - 2 });
      expect(await h.read('api/en/latest.json')).toBe(JSON.stringify({ rev: 2 }));
    });

    it('removes a dropped document only once its safe delay has passed, keeping the rest', async () => {
      const h = await setup();
      await h.sink.publish(sampleBuild(1));
      const dropped = 'api/en/events/r-2.json';
      const next = sampleBuild(1).filter((d) => d.key !== dropped);
      const first = await h.sink.publish(next);
      expect(first.deleted + first.pendingDelete).toBe(1);
      if (first.pendingDelete === 1) expect(await h.read(dropped)).not.toBeNull();
      h.advance(h.deleteAfterMs + 1);
      await h.sink.publish(next);
      expect(await h.read(dropped)).toBeNull();
      for (const d of next) expect(await h.read(d.key)).toBe(d.body);
    });

    it('keeps a document that comes back into the build before its delay ran out', async () => {
      const h = await setup();
      const build = sampleBuild(1);
      await h.sink.publish(build);
      await h.sink.publish(build.filter((d) => d.key !== 'api/en/events/r-2.json'));
      await h.sink.publish(build);
      h.advance(h.deleteAfterMs + 1);
      const report = await h.sink.publish(build);
      expect(report).toMatchObject({ deleted: 0, pendingDelete: 0 });
      for (const d of build) expect(await h.read(d.key)).toBe(d.body);
    });

    it('asks beforePhase before each phase it writes and before deleting, in phase order', async () => {
      const h = await setup();
      const steps: string[] = [];
      await h.sink.publish(sampleBuild(1), { beforePhase: async (step) => void steps.push(step) });
      expect(steps).toEqual(['phase 0', 'phase 1', 'phase 2', 'phase 3', 'deletes']);
      steps.length = 0;
      // A sink may skip phases with nothing to write (S3, memory) or compare as it writes (local): the phase that
      // changed is asked, in order, and the deletes come last.
      await h.sink.publish(sampleBuild(1, { latestRev: 2 }), { beforePhase: async (step) => void steps.push(step) });
      expect(steps).toContain('phase 2');
      expect(steps.at(-1)).toBe('deletes');
      expect(steps.slice(0, -1)).toEqual(steps.slice(0, -1).sort());
    });

    it('writes nothing of a phase whose beforePhase refuses, leaving the earlier phases written and the old documents in place', async () => {
      const h = await setup();
      await h.sink.publish(sampleBuild(1));
      const next = sampleBuild(2);
      const refused = new Error('lock lost');
      await expect(
        h.sink.publish(next, {
          beforePhase: async (step) => {
            if (step === 'phase 1') throw refused;
          },
        }),
      ).rejects.toBe(refused);
      // Phase 0 (the new event) is in; the history and the summaries still show the old build.
      expect(await h.read('api/en/events/r-3.json')).toBe(next.find((d) => d.key === 'api/en/events/r-3.json')!.body);
      for (const d of sampleBuild(1).filter((x) => x.phase >= PHASE.lists))
        expect(await h.read(d.key), d.key).toBe(d.body);
    });

    it('publishes a stream (sync or async generator) in phase order as it publishes the array', async () => {
      const build = byPhase(sampleBuild(1));
      const sync = await setup();
      expect(await sync.sink.publish(build.values())).toMatchObject({ written: build.length, unchanged: 0 });
      for (const d of build) expect(await sync.read(d.key)).toBe(d.body);
      const lazy = await setup();
      expect(await lazy.sink.publish(stream(build))).toMatchObject({ written: build.length, unchanged: 0 });
      for (const d of build) expect(await lazy.read(d.key)).toBe(d.body);
      expect(await lazy.sink.publish(stream(build))).toMatchObject({ written: 0, unchanged: build.length });
    });

    it('takes an array in any order, writing it phase by phase', async () => {
      const h = await setup();
      const steps: string[] = [];
      const build = [...sampleBuild(1)].reverse();
      expect(await h.sink.publish(build, { beforePhase: async (step) => void steps.push(step) })).toMatchObject({
        written: build.length,
      });
      expect(steps).toEqual(['phase 0', 'phase 1', 'phase 2', 'phase 3', 'deletes']);
      for (const d of build) expect(await h.read(d.key)).toBe(d.body);
    });

    it('refuses a stream document of a lower phase after a higher one (DataError), writing neither it nor anything after it', async () => {
      const h = await setup();
      const [leaf, , , history, latest, , schema] = sampleBuild(1);
      const steps: string[] = [];
      const publishing = h.sink.publish(stream([leaf!, latest!, history!, schema!]), {
        beforePhase: async (step) => void steps.push(step),
      });
      await expect(publishing).rejects.toThrow(DataError);
      await expect(publishing).rejects.toThrow(
        /api\/en\/history\.json.* phase 1 came after .*api\/en\/latest\.json.* phase 2/,
      );
      expect(await h.read(leaf!.key)).toBe(leaf!.body);
      expect(await h.read(history!.key)).toBeNull();
      expect(await h.read(schema!.key)).toBeNull();
      expect(steps).not.toContain('deletes');
    });

    it('refuses a second document for a key in a stream (DataError) before writing it', async () => {
      const h = await setup();
      const [a, b] = sampleBuild(1);
      const again = { ...a!, body: JSON.stringify({ second: true }) };
      await expect(h.sink.publish(stream([a!, b!, again]))).rejects.toThrow(
        /two documents for api\/en\/events\/r-1\.json/,
      );
      expect(await h.read(a!.key)).not.toBe(again.body);
    });

    it("fails with the stream's own error, writing nothing after it and deleting nothing", async () => {
      const h = await setup();
      const before = sampleBuild(1);
      await h.sink.publish(before);
      h.advance(h.deleteAfterMs + 1);
      const next = byPhase(sampleBuild(2));
      const broken = new Error('render failed');
      let closed = false;
      async function* failing() {
        try {
          for (const d of next) {
            if (d.phase === PHASE.summaries) throw broken;
            yield d;
          }
        } finally {
          closed = true;
        }
      }
      await expect(h.sink.publish(failing())).rejects.toBe(broken);
      expect(closed).toBe(true);
      // Build 2 drops r-2: not deleted, as the stream never ended. The summaries still show build 1.
      expect(await h.read('api/en/events/r-2.json')).toBe(before.find((d) => d.key === 'api/en/events/r-2.json')!.body);
      for (const d of before.filter((x) => x.phase >= PHASE.summaries)) expect(await h.read(d.key)).toBe(d.body);
      // The next publish completes the build.
      await h.sink.publish(stream(next));
      for (const d of next) expect(await h.read(d.key)).toBe(d.body);
    });

    it('deletes a dropped document only after the whole stream has been published', async () => {
      const h = await setup();
      await h.sink.publish(sampleBuild(1));
      const dropped = 'api/en/events/r-2.json';
      const next = byPhase(sampleBuild(1).filter((d) => d.key !== dropped));
      if (h.deleteAfterMs > 0) {
        // Dropped once, pending; its delay then runs out, so the watched publish is the one that deletes it.
        await h.sink.publish(next);
        h.advance(h.deleteAfterMs + 1);
      }
      let atEnd: string | null = null;
      async function* watched() {
        yield* next;
        atEnd = await h.read(dropped);
      }
      const report = await h.sink.publish(watched());
      expect(atEnd).not.toBeNull();
      expect(report.deleted).toBeGreaterThanOrEqual(1);
      expect(await h.read(dropped)).toBeNull();
    });

    it.each(['../escape.json', '/abs.json', 'api/../../escape.json', 'api//x.json', 'api/x y.json'])(
      'refuses the unsafe key %s',
      async (key) => {
        const h = await setup();
        await expect(h.sink.publish([doc(key, {}, PHASE.leaves)])).rejects.toThrow(/unsafe object key/);
      },
    );
  });
}
