// The in-memory Sink runs the same contract suite as the local and S3 sinks, in milliseconds.
import { expect, it } from 'vitest';
import { createMemorySink } from '../helpers/memory-sink.ts';
import { sampleBuild, sinkContract } from '../contracts/sink.ts';

const T0 = Date.parse('2026-11-21T00:00:00.000Z');
const DELETE_AFTER_MS = 60 * 60 * 1000;

function harness() {
  const clock = { ms: T0 };
  const sink = createMemorySink({ now: () => new Date(clock.ms), deleteAfterMs: DELETE_AFTER_MS });
  return {
    sink,
    read: async (key: string) => sink.objects.get(key)?.body ?? null,
    advance: (ms: number) => {
      clock.ms += ms;
    },
    deleteAfterMs: DELETE_AFTER_MS,
  };
}

sinkContract('memory', async () => harness());

it('keeps the contract headers of every document', async () => {
  const h = harness();
  await h.sink.publish(sampleBuild(1));
  expect(h.sink.objects.get('api/de/latest.json')).toMatchObject({
    contentLanguage: 'de',
    cacheControl: 'public, max-age=30',
  });
  expect(h.sink.objects.get('api/openapi.json')?.contentLanguage).toBeNull();
});
