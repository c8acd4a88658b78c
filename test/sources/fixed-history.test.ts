// A tracker cannot rewrite or unpublish history (the soak's `document_older_than_replaced`).
// Through the real pipeline with a loopback tracker: a run that moves every record's time back and stops listing the
// newest leaves each record at its first-seen time, keeps the one no longer listed, and no history document's
// `updated_at` goes back. Pure: the MAX_TRACKER_EVENTS cap never takes a type's newest event out of its history.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGS } from '../../builder/contract.ts';
import { applySourceResults, MAX_TRACKER_EVENTS } from '../../builder/model/apply.ts';
import { emptyState, EventSchema, type Event, type SourceCheck } from '../../builder/model/schemas.ts';
import { createTempBuild, startLoopback, trackerHandler, type LoopbackServer } from '../helpers/build.ts';

const T0 = Date.parse('2026-11-21T12:00:00Z');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const record = (id: string, at: number, type = 'regular') => ({
  id,
  reset_type: type,
  announced_at: iso(at),
  text: `Reset ${id}.`,
  source: { type: 'observed', url: `https://tracker.example/r/${id}` },
});
/** Run 1: the truth. Run 2: the same ids, each two hours earlier, and the newest one gone. */
const TRUTH = [
  record('r-new', T0 - 1 * HOUR),
  record('r-mid', T0 - 20 * HOUR),
  record('b-old', T0 - 30 * HOUR, 'banked'),
];
const LIE = TRUTH.slice(1).map((r) => ({ ...r, announced_at: iso(Date.parse(r.announced_at) - 2 * HOUR) }));

let tracker: LoopbackServer;
let answer: unknown[] = TRUTH;
beforeAll(async () => {
  tracker = await startLoopback(trackerHandler(() => answer));
});
afterAll(async () => tracker?.close());

describe('a lying tracker run', () => {
  it('keeps every record at its first-seen time and the newest one it stopped listing: no history goes back', async () => {
    const b = await createTempBuild();
    const sources = [{ id: 'reset-tracker', kind: 'reset_tracker' as const, url: `${tracker.url}/api/v1/resets` }];
    const docs = ['history.json', 'history/global_reset.json', 'history/banked_grant.json'];
    const read = async () => {
      const out: Record<string, { updated_at: string; events: Record<string, string> }> = {};
      for (const lang of LANGS) {
        for (const doc of docs) {
          const body = JSON.parse(await readFile(path.join(b.outDir, 'api', lang, doc), 'utf8')) as {
            meta: { updated_at: string };
            events: { id: string; occurred_at: string }[];
          };
          out[`${lang}/${doc}`] = {
            updated_at: body.meta.updated_at,
            events: Object.fromEntries(body.events.map((e) => [e.id, e.occurred_at])),
          };
        }
      }
      return out;
    };

    answer = TRUTH;
    expect((await b.build(iso(T0), sources)).sources[0]).toMatchObject({ ok: true });
    const first = await read();
    expect(first['en/history.json']!.updated_at).toBe(iso(T0 - HOUR));
    expect(first['en/history.json']!.events).toMatchObject({
      'sr-r-new': iso(T0 - HOUR),
      'sr-r-mid': iso(T0 - 20 * HOUR),
    });

    answer = LIE;
    expect((await b.build(iso(T0 + 15 * 60_000), sources)).sources[0]).toMatchObject({ ok: true });
    // Every document, every language: the same newest time and the same events at the times first seen.
    expect(await read()).toEqual(first);
    const state = JSON.parse(await readFile(path.join(b.stateDir, 'state.json'), 'utf8')) as {
      upstream_events: Event[];
    };
    expect(Object.fromEntries(state.upstream_events.map((e) => [e.id, e.observed_at]))).toEqual({
      'sr-r-new': iso(T0 - HOUR),
      'sr-r-mid': iso(T0 - 20 * HOUR),
      'sr-b-old': iso(T0 - 30 * HOUR),
    });
  }, 60_000);
});

const AS_OF = new Date(T0);
const check: SourceCheck = {
  source: 'reset-tracker',
  kind: 'reset_tracker',
  url: 'https://t.example/',
  ok: true,
  http_status: 200,
  latency_ms: 1,
  items_read: 1,
  checked_at: AS_OF.toISOString(),
  detail: { code: 'record_cap_reached', params: {} },
};
const ev = (id: string, at: number, type: Event['type']): Event =>
  EventSchema.parse({
    id,
    type,
    status: 'archived',
    reason: type === 'banked_grant' ? 'banked' : 'other',
    origin: 'service_resets',
    time_precision: 'second',
    time_basis: 'observation',
    announced_at: null,
    observed_at: iso(at),
    effective_at: null,
    evidence_text: 'x',
    sources: [{ platform: 'web', url: `https://t.example/${id}` }],
  });

describe('the tracker event cap', () => {
  it(`keeps a type's newest event when MAX_TRACKER_EVENTS (${MAX_TRACKER_EVENTS}) newer events of another type arrive`, () => {
    // One old global reset, then banked grants (not counted by the anomaly rule), all newer, until they alone pass the cap.
    const reset = ev('reset', T0 - 400 * 24 * HOUR, 'global_reset');
    let state = { ...emptyState(), upstream_events: [reset] };
    for (let r = 0; r < 6; r++) {
      const events = Array.from({ length: 400 }, (_, k) =>
        ev(`b-${r}-${k}`, T0 - (r * 400 + k + 1) * 60_000, 'banked_grant'),
      );
      state = applySourceResults(state, [{ check, events }], [], AS_OF);
    }
    expect(state.upstream_events).toHaveLength(MAX_TRACKER_EVENTS);
    // history/global_reset.json keeps its newest (only) event; the oldest banked grants made room for it.
    expect(state.upstream_events.at(-1)).toEqual(reset);
    expect(state.upstream_events[0]!.id).toBe('b-0-0');
    expect(state.upstream_events.at(-2)!.id).toBe('b-4-398');
  });

  it('does not quarantine a tracker for still listing what the cap let go', () => {
    const kept = Array.from({ length: MAX_TRACKER_EVENTS }, (_, k) =>
      ev(`g-${k}`, T0 - (k + 1) * 13 * HOUR, 'global_reset'),
    );
    const full = { ...emptyState(), upstream_events: kept };
    const dropped = Array.from({ length: 20 }, (_, k) =>
      ev(`gone-${k}`, T0 - (MAX_TRACKER_EVENTS + k + 1) * 13 * HOUR, 'global_reset'),
    );
    const next = applySourceResults(
      full,
      [{ check: { ...check, detail: { code: 'ok', params: {} } }, events: [...kept.slice(0, 5), ...dropped] }],
      [],
      AS_OF,
    );
    expect(next.checks.at(-1)).toMatchObject({ ok: true });
    expect(next.upstream_events).toEqual(kept);
    // Twenty new ones of the last day are news, and over the rule.
    const news = dropped.map((e, k) => ev(e.id, T0 - (k + 1) * HOUR, 'global_reset'));
    expect(applySourceResults(full, [{ check, events: news }], [], AS_OF).checks.at(-1)).toMatchObject({
      ok: false,
      detail: { code: 'source_anomaly' },
    });
  });
});
