// Paged history (issue #23): the newest document and the archived pages of every language and type, from a real
// render. Every page of the `next` chain resolves, the chain reads every event exactly once in order, an archived page
// is byte-identical after a newer event is added, and only the newest documents change.
import { describe, expect, it } from 'vitest';
import { computeAccuracy } from '../../builder/model/accuracy.ts';
import { computeToday } from '../../builder/model/status.ts';
import {
  archivedPageCount,
  EVENT_TYPES,
  HISTORY_PAGE_SIZE,
  historyByTypeKey,
  historyPageKey,
  LANGS,
  type EventType,
  type Lang,
} from '../../builder/contract.ts';
import { renderApi, renderApiParts, type RenderInput } from '../../builder/render/documents.ts';
import type { Event } from '../../builder/model/schemas.ts';
import { route } from '../../builder/edge/route.ts';
import { testEvent } from '../helpers/events.ts';

const asOf = new Date('2026-11-21T12:00:00Z');
const HOUR = 3600_000;
/** `n` events, newest first (as the build orders them), one every 7 hours, types in turn. */
function events(n: number): Event[] {
  const out: Event[] = [];
  for (let i = 0; i < n; i++)
    out.push(
      testEvent(
        new Date(asOf.getTime() - (i + 1) * 7 * HOUR).toISOString().slice(0, 19) + 'Z',
        EVENT_TYPES[i % 3] as EventType,
      ),
    );
  return out;
}
const input = (list: Event[]): RenderInput => ({
  asOf,
  events: list,
  today: computeToday(list, [], asOf),
  latestReset: list[0] ?? null,
  latestVerifiedReset: null,
  checks: [],
  upstreamStatus: null,
  signals: [],
  forecast: {
    probability_24h: null,
    probability_48h: null,
    base_rate_24h: null,
    base_rate_48h: null,
    sample_size: 0,
    model_version: 'climatology-30d',
    explanation: { code: 'insufficient_data', params: {} },
    last_global_reset_at: null,
  },
  accuracy: computeAccuracy([], [], asOf),
  archives: [],
});

interface Doc {
  count?: number;
  archived_pages?: number;
  next: string | null;
  page?: number;
  first_position?: number;
  page_size: number;
  events: { id: string }[];
}

/** Follows `next` from the newest document through the router, as a client would, returning the pages read. */
function chain(bodies: Map<string, string>, lang: Lang, type: EventType | null): Doc[] {
  const first = JSON.parse(
    bodies.get(type === null ? `api/${lang}/history.json` : historyByTypeKey(lang, type))!,
  ) as Doc;
  const out = [first];
  for (let next = first.next; next !== null;) {
    const [path, query] = next.split('?') as [string, string];
    const r = route({ method: 'GET', uri: path, query });
    if (r.kind !== 'object') throw new Error(`${next} did not route to an object: ${r.status}`);
    const body = bodies.get(r.key);
    if (body === undefined) throw new Error(`${next} routes to ${r.key}, which the build does not publish`);
    const doc = JSON.parse(body) as Doc;
    out.push(doc);
    next = doc.next;
  }
  return out;
}

describe('paged history', () => {
  it.each([0, 1, 99, 100, 199, 200, 201, 299, 300, 1050])(
    '%i events: the next chain reads every event exactly once, newest first, in every language and type',
    (n) => {
      const list = events(n);
      const bodies = new Map(renderApi(input(list)).map((d) => [d.key, d.body]));
      for (const lang of LANGS) {
        for (const type of [null, ...EVENT_TYPES]) {
          const want = list.filter((e) => type === null || e.type === type).map((e) => e.id);
          const pages = chain(bodies, lang, type);
          expect(pages.flatMap((p) => p.events.map((e) => e.id))).toEqual(want);
          const head = pages[0]!;
          expect(head.count).toBe(want.length);
          expect(head.archived_pages).toBe(archivedPageCount(want.length));
          expect(pages.length).toBe(archivedPageCount(want.length) + 1);
          // The newest document holds the newest 100 whenever there are that many, and never 200.
          expect(head.events.length).toBeGreaterThanOrEqual(Math.min(want.length, HISTORY_PAGE_SIZE));
          expect(head.events.length).toBeLessThan(2 * HISTORY_PAGE_SIZE);
          pages.slice(1).forEach((p, i) => {
            const number = head.archived_pages! - i;
            expect(p.page).toBe(number);
            expect(p.events.length).toBe(HISTORY_PAGE_SIZE);
            expect(p.first_position).toBe((number - 1) * HISTORY_PAGE_SIZE + 1);
            // Positions count from the oldest: page N's oldest event is the ((N-1)*100+1)-th oldest.
            expect(p.events[p.events.length - 1]!.id).toBe(want[want.length - p.first_position!]);
          });
          // No page beyond the archived ones is published.
          expect(bodies.has(historyPageKey(lang, type, head.archived_pages! + 1))).toBe(false);
        }
      }
    },
  );

  it('a new event rewrites only the newest documents: every archived page keeps its bytes', () => {
    const before = events(1050);
    const newer = testEvent('2026-11-21T11:00:00Z', 'global_reset');
    const a = new Map(renderApi(input(before)).map((d) => [d.key, d.body]));
    const b = new Map(renderApi(input([newer, ...before])).map((d) => [d.key, d.body]));
    const changed = [...b.keys()].filter((k) => a.get(k) !== b.get(k) && /\/history/.test(k)).sort();
    // The all-types and global_reset newest documents in five languages; no archived page.
    expect(changed).toEqual(
      LANGS.flatMap((l) => [`api/${l}/history.json`, `api/${l}/history/global_reset.json`]).sort(),
    );
    const archived = [...a.keys()].filter((k) => k.includes('/pages/'));
    expect(archived.length).toBe(LANGS.length * (archivedPageCount(1050) + 3 * archivedPageCount(350)));
    for (const k of archived) expect(b.get(k)).toBe(a.get(k));
  });

  it('produces the stable documents lazily and in phase order (events, then histories)', () => {
    const r = renderApiParts(input(events(450)));
    const gen = r.stable();
    const first = gen.next().value!;
    expect(first.phase).toBe(0);
    let last = 0;
    let count = 1;
    for (const d of gen) {
      expect(d.phase).toBeGreaterThanOrEqual(last);
      last = d.phase;
      count++;
    }
    expect(count).toBe(LANGS.length * (450 + 4 + archivedPageCount(450) + 3 * archivedPageCount(150)));
  });
});
