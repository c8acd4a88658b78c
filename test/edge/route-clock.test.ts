// The router with the clock and the edge store's values: pure, so every boundary is pinned without a server.
import { describe, expect, it } from 'vitest';
import { eventIdOf, liveKey, parseFreshness, route, type EdgeContext } from '../../builder/edge/route.ts';

// A build at 12:00 on the 21st that published dated variants for its date and three more.
const dates = ['2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24'];
const fresh = {
  staleAfter: Date.parse('2026-11-21T12:30:00Z'),
  buildDate: '2026-11-21',
  nextDay: Date.parse('2026-11-22T00:00:00Z'),
  variantDates: dates,
  forecastStaleAfter: Date.parse('2026-11-21T13:00:00Z'),
};
const at = (iso: string, eventKnown: boolean | null = null): EdgeContext => ({
  now: Date.parse(iso),
  freshness: fresh,
  eventKnown,
});
const key = (uri: string, query: string, ctx?: EdgeContext) => {
  const r = route({ method: 'GET', uri, query }, ctx);
  if (r.kind !== 'object') throw new Error(`not an object: ${JSON.stringify(r)}`);
  return r.key;
};

describe('liveKey', () => {
  it('serves the build until stale_after, its unknown variant from stale_after on', () => {
    expect(liveKey('de', 'latest', at('2026-11-21T12:29:59.999Z'))).toBe('api/de/latest.json');
    expect(liveKey('de', 'latest', at('2026-11-21T12:30:00.000Z'))).toBe('api/de/unknown/2026-11-21/latest.json');
    expect(liveKey('de', 'status', at('2026-11-21T23:59:59.999Z'))).toBe('api/de/unknown/2026-11-21/status.json');
  });

  it("the next day's variant from midnight on", () => {
    expect(liveKey('ja', 'latest', at('2026-11-21T23:59:59.999Z'))).toBe('api/ja/unknown/2026-11-21/latest.json');
    expect(liveKey('ja', 'latest', at('2026-11-22T00:00:00.000Z'))).toBe('api/ja/unknown/2026-11-22/latest.json');
  });

  it('on another date even before stale_after (a store that says midnight holds the day, not the next one)', () => {
    const ctx: EdgeContext = {
      now: Date.parse('2026-11-22T00:05:00Z'),
      freshness: { ...fresh, staleAfter: Date.parse('2026-11-22T00:00:00Z') },
      eventKnown: null,
    };
    expect(liveKey('en', 'latest', ctx)).toBe('api/en/unknown/2026-11-22/latest.json');
  });

  it("serves the forecast until its own stale_after, then its expired variant, whatever today's answer says", () => {
    // After today's answer expired (12:30) and before the forecast's (13:00): the forecast as built.
    expect(liveKey('ko', 'forecast', at('2026-11-21T12:45:00Z'))).toBe('api/ko/forecast.json');
    expect(liveKey('ko', 'forecast', at('2026-11-21T12:59:59.999Z'))).toBe('api/ko/forecast.json');
    for (const iso of ['2026-11-21T13:00:00.000Z', '2026-11-24T13:00:00Z', '2026-12-01T13:00:00Z'])
      expect(liveKey('ko', 'forecast', at(iso)), iso).toBe('api/ko/unknown/forecast.json');
    // A forecast that holds past today's answer (a day with a recorded reset holds until midnight) expires on its own.
    const recorded = { ...fresh, staleAfter: Date.parse('2026-11-22T00:00:00Z') };
    const ctx = (iso: string): EdgeContext => ({ now: Date.parse(iso), freshness: recorded, eventKnown: null });
    expect(liveKey('de', 'latest', ctx('2026-11-21T13:30:00Z'))).toBe('api/de/latest.json');
    expect(liveKey('de', 'forecast', ctx('2026-11-21T13:30:00Z'))).toBe('api/de/unknown/forecast.json');
    // A store value without forecast_stale_after (its build published no expired forecast): served as built.
    const older = { ...fresh, forecastStaleAfter: null };
    expect(
      liveKey('de', 'forecast', { now: Date.parse('2026-12-01T00:00:00Z'), freshness: older, eventKnown: null }),
    ).toBe('api/de/forecast.json');
    expect(key('/api/forecast', 'lang=zh', at('2026-11-21T13:00:00Z'))).toBe('api/zh/unknown/forecast.json');
  });

  it("serves the page made from what the edge serves: today's unknown copy, else the one with the expired forecast", () => {
    expect(key('/de/', '', at('2026-11-21T12:10:00Z'))).toBe('api/de/index.html');
    // Today's answer expired first (a calm day): its unknown copy, which carries the expired forecast.
    expect(key('/de/', '', at('2026-11-21T12:45:00Z'))).toBe('api/de/unknown/2026-11-21/index.html');
    expect(key('/', 'lang=ja', at('2026-11-21T13:00:00Z'))).toBe('api/ja/unknown/2026-11-21/index.html');
    // Today's answer holds past the forecast (a recorded reset holds until midnight): the build's page with the expired
    // forecast, then at midnight the next date's unknown copy.
    const recorded = { ...fresh, staleAfter: Date.parse('2026-11-22T00:00:00Z') };
    const ctx = (iso: string): EdgeContext => ({ now: Date.parse(iso), freshness: recorded, eventKnown: null });
    expect(key('/ko', '', ctx('2026-11-21T12:59:59.999Z'))).toBe('api/ko/index.html');
    expect(key('/ko', '', ctx('2026-11-21T13:00:00Z'))).toBe('api/ko/unknown/forecast/index.html');
    expect(key('/ko/', '', ctx('2026-11-22T00:00:00Z'))).toBe('api/ko/unknown/2026-11-22/index.html');
  });

  it('leaves documents without a today alone, and everything when there is no clock, no store or a clock behind the build', () => {
    expect(liveKey('en', 'forecast', at('2026-11-21T12:59:00Z'))).toBe('api/en/forecast.json');
    expect(liveKey('en', 'history', at('2026-11-23T00:00:00Z'))).toBe('api/en/history.json');
    expect(liveKey('en', 'latest', undefined)).toBe('api/en/latest.json');
    expect(
      liveKey('en', 'latest', { now: Date.parse('2026-11-23T00:00:00Z'), freshness: null, eventKnown: null }),
    ).toBe('api/en/latest.json');
    expect(liveKey('en', 'latest', at('2026-11-20T23:59:00Z'))).toBe('api/en/latest.json');
    expect(liveKey('en', 'forecast', undefined)).toBe('api/en/forecast.json');
    expect(
      liveKey('en', 'forecast', { now: Date.parse('2026-12-01T00:00:00Z'), freshness: null, eventKnown: null }),
    ).toBe('api/en/forecast.json');
  });

  it('is what route() maps the endpoints to', () => {
    expect(key('/api/latest', 'lang=ko', at('2026-11-21T13:00:00Z'))).toBe('api/ko/unknown/2026-11-21/latest.json');
    expect(key('/api/history', 'type=global_reset', at('2026-11-21T13:00:00Z'))).toBe(
      'api/en/history/global_reset.json',
    );
  });
});

describe('builds stopped: the edge never names a wrong date', () => {
  // The build of `fresh`, then no build again.
  const stopped = (iso: string): EdgeContext => at(iso);
  const lastBuild = Date.parse('2026-11-21T12:00:00Z');
  const daysAfter = (days: number, ms = 0) => new Date(lastBuild + days * 86400000 + ms).toISOString();

  it("1 and 2 days after the last build: the variant of the clock's own UTC date", () => {
    expect(liveKey('en', 'latest', stopped(daysAfter(1)))).toBe('api/en/unknown/2026-11-22/latest.json');
    expect(liveKey('de', 'status', stopped(daysAfter(2)))).toBe('api/de/unknown/2026-11-23/status.json');
    expect(key('/ko/', '', stopped(daysAfter(2)))).toBe('api/ko/unknown/2026-11-23/index.html');
  });

  it('3 days after: the last dated variant, to its last millisecond; then the dateless one', () => {
    expect(liveKey('ja', 'latest', stopped(daysAfter(3)))).toBe('api/ja/unknown/2026-11-24/latest.json');
    expect(liveKey('ja', 'latest', stopped('2026-11-24T23:59:59.999Z'))).toBe('api/ja/unknown/2026-11-24/latest.json');
    expect(liveKey('ja', 'latest', stopped('2026-11-25T00:00:00.000Z'))).toBe('api/ja/unknown/stopped/latest.json');
  });

  it('10 days after, and a year after: the dateless "builds stopped" variant, for latest, status and the page', () => {
    for (const iso of [daysAfter(10), daysAfter(365)]) {
      expect(liveKey('zh', 'latest', stopped(iso))).toBe('api/zh/unknown/stopped/latest.json');
      expect(key('/api/status', 'lang=zh', stopped(iso))).toBe('api/zh/unknown/stopped/status.json');
      expect(key('/zh/', '', stopped(iso))).toBe('api/zh/unknown/stopped/index.html');
      expect(key('/api/badge.svg', 'lang=zh', stopped(iso))).toBe('api/zh/unknown/badge.svg');
    }
  });

  it("every instant of the next 12 days names the clock's own UTC date or none", () => {
    for (let t = Date.parse('2026-11-21T12:30:00Z'); t < lastBuild + 12 * 86400000; t += 3600000 + 61000) {
      const k = liveKey('en', 'latest', stopped(new Date(t).toISOString()));
      const named = /unknown\/([^/]+)\//.exec(k)?.[1];
      expect([new Date(t).toISOString().slice(0, 10), 'stopped'], new Date(t).toISOString()).toContain(named);
    }
  });
});

describe('event ids and the store', () => {
  it('answers an id the store does not list with the translated 404, and lets a listed one through', () => {
    const r = route(
      { method: 'GET', uri: '/api/events/no-such-id', query: 'lang=de' },
      at('2026-11-21T12:00:00Z', false),
    );
    expect(r.kind === 'response' && r.status).toBe(404);
    if (r.kind === 'response') {
      expect(r.headers['content-language']).toBe('de');
      expect(JSON.parse(r.body).error.message).toContain('no-such-id');
    }
    expect(key('/api/events/2026-09-12-x', 'lang=de', at('2026-11-21T12:00:00Z', true))).toBe(
      'api/de/events/2026-09-12-x.json',
    );
  });

  it('goes to the origin when the id was not looked up or the store is empty', () => {
    expect(key('/api/events/no-such-id', '', at('2026-11-21T12:00:00Z', null))).toBe('api/en/events/no-such-id.json');
    expect(key('/api/events/no-such-id', '', { now: 0, freshness: null, eventKnown: false })).toBe(
      'api/en/events/no-such-id.json',
    );
  });

  it('eventIdOf names the id of an event path only', () => {
    expect(eventIdOf('/api/events/2026-09-12-x')).toBe('2026-09-12-x');
    for (const uri of ['/api/events/', '/api/events/BAD', '/api/events/a/b', '/api/latest', '/api/events/x%2F'])
      expect(eventIdOf(uri), uri).toBeNull();
  });
});

describe('parseFreshness', () => {
  it('reads variant_dates, and refuses a value without them or with a malformed list', () => {
    const ok = {
      stale_after: '2026-11-21T12:30:00Z',
      build_date: '2026-11-21',
      next_date: '2026-11-22',
      forecast_stale_after: '2026-11-21T13:00:00Z',
    };
    expect(parseFreshness(JSON.stringify({ ...ok, variant_dates: dates }))).toEqual(fresh);
    expect(parseFreshness(JSON.stringify(ok))).toBeNull();
    for (const bad of [
      [],
      ['2026-11-21'],
      ['2026-11-22', '2026-11-23'],
      ['2026-11-21', 5],
      ['2026-11-21', '22.11.2026'],
      '2026-11-21',
      Array(40).fill('2026-11-21'),
    ]) {
      expect(parseFreshness(JSON.stringify({ ...ok, variant_dates: bad })), JSON.stringify(bad)).toBeNull();
    }
  });

  it('reads the store value and refuses anything else', () => {
    expect(
      parseFreshness(
        '{"stale_after":"2026-11-21T12:30:00.000Z","build_date":"2026-11-21","next_date":"2026-11-22",' +
          '"variant_dates":["2026-11-21","2026-11-22","2026-11-23","2026-11-24"],' +
          '"forecast_stale_after":"2026-11-21T13:00:00Z"}',
      ),
    ).toEqual(fresh);
    // Without forecast_stale_after, or with one that is no instant: today's values hold, the forecast never expires.
    const older = {
      stale_after: '2026-11-21T12:30:00Z',
      build_date: '2026-11-21',
      next_date: '2026-11-22',
      variant_dates: dates,
    };
    expect(parseFreshness(JSON.stringify(older))).toEqual({ ...fresh, forecastStaleAfter: null });
    expect(parseFreshness(JSON.stringify({ ...older, forecast_stale_after: 'soon' }))).toEqual({
      ...fresh,
      forecastStaleAfter: null,
    });
    const ok = {
      stale_after: '2026-11-21T12:30:00Z',
      build_date: '2026-11-21',
      next_date: '2026-11-22',
      variant_dates: dates,
    };
    const bad = [
      undefined,
      null,
      42,
      '',
      'null',
      '[]',
      '{}',
      JSON.stringify({ ...ok, stale_after: 'soon' }),
      JSON.stringify({ ...ok, build_date: '21.11.2026' }),
      JSON.stringify({ ...ok, next_date: '2026-11-22T00:00:00Z' }),
      JSON.stringify({ stale_after: ok.stale_after, build_date: ok.build_date, variant_dates: dates }),
    ];
    for (const v of bad) {
      expect(parseFreshness(v), String(v)).toBeNull();
    }
  });
});

describe('messages the bundle keeps in English only', () => {
  it('are only ever answered in English, whatever lang asks for', async () => {
    const { EDGE_ENGLISH_ONLY_MESSAGES } = await import('../../scripts/build-edge.ts');
    const requests = [
      { uri: '/api/latest', query: 'lang=de&lang=fr&x=%zz' },
      { uri: '/api/latest', query: 'lang=ko&x=%' },
      { uri: '/api/latest', query: 'lang=fr' },
      { uri: '/api/latest', query: 'lang=ja&' + Array.from({ length: 25 }, (_, i) => `p${i}=1`).join('&') },
      { uri: '/api/' + 'a'.repeat(600), query: 'lang=zh' },
      { uri: '/api/latest', query: 'lang=de&x=' + 'a'.repeat(1100) },
    ];
    const seen = new Set<string>();
    for (const r of requests) {
      const res = route({ method: 'GET', ...r }, at('2026-11-21T12:00:00Z'));
      if (res.kind !== 'response') continue;
      const code = JSON.parse(res.body).error.code as string;
      if (EDGE_ENGLISH_ONLY_MESSAGES.includes(code)) {
        seen.add(code);
        expect(res.headers['content-language'], code).toBe('en');
      }
    }
    expect([...seen].sort()).toEqual([...EDGE_ENGLISH_ONLY_MESSAGES].sort());
  });
});
