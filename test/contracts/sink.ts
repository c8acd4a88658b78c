// The one Sink contract, run against every implementation (local directory, S3).
import { describe, expect, it } from 'vitest';
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
      await expect(h.sink.publish(next, { beforePhase: async (step) => { if (step === 'phase 1') throw refused; } })).rejects.toBe(refused);
      // Phase 0 (the new event) is in; the history and the summaries still show the old build.
      expect(await h.read('api/en/events/r-3.json')).toBe(next.find((d) => d.key === 'api/en/events/r-3.json')!.body);
      for (const d of sampleBuild(1).filter((x) => x.phase >= PHASE.lists)) expect(await h.read(d.key), d.key).toBe(d.body);
    });

    it.each(['../escape.json', '/abs.json', 'api/../../escape.json', 'api//x.json', 'api/x y.json'])('refuses the unsafe key %s', async (key) => {
      const h = await setup();
      await expect(h.sink.publish([doc(key, {}, PHASE.leaves)])).rejects.toThrow(/unsafe object key/);
    });
  });
}
