import { computeAccuracy } from '../../builder/model/accuracy.ts';
import { describe, expect, it } from 'vitest';
import { computeToday } from '../../builder/model/status.ts';
import { renderApi, type RenderInput } from '../../builder/render/documents.ts';
import { testEvent } from '../helpers/events.ts';

const asOf = new Date('2026-11-21T12:00:00Z');
const input = (over: Partial<RenderInput> = {}): RenderInput => {
  const events = [testEvent('2026-11-20T10:00:00Z'), testEvent('2026-11-19T10:00:00Z', 'banked_grant')];
  return {
    asOf,
    events,
    today: computeToday(events, [], asOf),
    latestReset: events[0]!,
    latestVerifiedReset: null,
    checks: [],
    upstreamStatus: null,
    signals: [],
    forecast: {
      probability_24h: 0.5,
      probability_48h: 0.7,
      base_rate_24h: 0.9,
      base_rate_48h: 1,
      sample_size: 40,
      model_version: 'hazard-v3',
      explanation: { code: 'insufficient_data', params: {} },
      last_global_reset_at: events[0]!.announced_at,
    },
    accuracy: computeAccuracy([], [], asOf),
    archives: [],
    ...over,
  };
};

describe('renderApi', () => {
  it('publishes a base rate of exactly 1 (every window had a reset) instead of failing the build', () => {
    const docs = renderApi(input());
    const f = JSON.parse(docs.find((d) => d.key === 'api/en/forecast.json')!.body);
    expect(f.base_rate_48h).toBe(1);
  });

  it('explains an announced reset in every language, with the scheduled time and the sample it rests on', async () => {
    const { computeForecast } = await import('../../builder/model/forecast.ts');
    const history = Array.from({ length: 12 }, (_, i) =>
      testEvent(new Date(Date.parse('2026-09-01T00:00:00Z') + i * 5 * 86_400_000).toISOString().replace('.000Z', 'Z')),
    );
    const forecast = computeForecast(history, asOf, {
      announced: { id: 'sr-next', scheduled_for: '2026-11-21T17:00:00Z', announced_at: '2026-11-21T11:00:00Z' },
    });
    expect(forecast.probability_24h!).toBeGreaterThanOrEqual(0.5);
    const docs = renderApi(input({ forecast }));
    for (const lang of ['en', 'de', 'ko', 'ja', 'zh']) {
      const f = JSON.parse(docs.find((d) => d.key === `api/${lang}/forecast.json`)!.body);
      expect(f.explanation).toContain('2026-11-21T17:00:00Z');
      expect(f.explanation).not.toContain('{{');
      expect(f.announced).toMatchObject({ id: 'sr-next', inside_24h: true, followed: 0, sample_size: 0 });
    }
    const en = JSON.parse(docs.find((d) => d.key === 'api/en/forecast.json')!.body);
    expect(en.explanation).toMatch(/announced for 2026-11-21T17:00:00Z.*Of 0 earlier announcements/);
  });

  it("says why skill is null in the document's own language (it was English in every language)", () => {
    const docs = renderApi(input());
    const reasons = new Map<string, string>();
    for (const lang of ['en', 'de', 'ko', 'ja', 'zh']) {
      const a = JSON.parse(docs.find((d) => d.key === `api/${lang}/accuracy.json`)!.body);
      expect(a.skill.all_history_24h).toMatchObject({ skill: null, n: 0 });
      const reason = a.skill.all_history_24h.reason as string;
      expect(reason).toContain('28');
      expect(reason).not.toContain('{{');
      reasons.set(lang, reason);
    }
    expect(reasons.get('en')).toMatch(/^Not scored yet: 0 resolved checkpoints/);
    expect(new Set(reasons.values()).size).toBe(5);
  });

  it('refuses to publish a probability of 0, which would claim certainty', () => {
    expect(() => renderApi(input({ forecast: { ...input().forecast, probability_24h: 0 } }))).toThrow(
      /api\/en\/forecast\.json does not match the forecast schema at probability_24h/,
    );
  });

  it('renders every endpoint, history type and event in all five languages, leaves before summaries', () => {
    const docs = renderApi(input());
    const keys = new Set(docs.map((d) => d.key));
    for (const lang of ['en', 'de', 'ko', 'ja', 'zh']) {
      for (const k of ['latest', 'history', 'forecast', 'status', 'signals', 'accuracy'])
        expect(keys.has(`api/${lang}/${k}.json`)).toBe(true);
      for (const t of ['global_reset', 'banked_grant', 'policy_change'])
        expect(keys.has(`api/${lang}/history/${t}.json`)).toBe(true);
      expect(keys.has(`api/${lang}/events/t-global_reset-20261120100000.json`)).toBe(true);
    }
    const phase = (k: string) => docs.find((d) => d.key === k)!.phase;
    expect(phase('api/en/events/t-global_reset-20261120100000.json')).toBeLessThan(phase('api/en/history.json'));
    expect(phase('api/en/history.json')).toBeLessThan(phase('api/en/latest.json'));
    expect(docs.find((d) => d.key === 'api/ja/latest.json')!.contentLanguage).toBe('ja');
  });

  it('publishes the last global reset and the last check to the second when upstream gave milliseconds (the build failed on them)', () => {
    const withMs = testEvent('2026-11-20T10:00:00.123Z');
    const check = {
      source: 'reset-tracker',
      kind: 'reset_tracker',
      url: 'https://example.invalid/',
      ok: true,
      http_status: 200,
      latency_ms: 5,
      items_read: 1,
      checked_at: '2026-11-21T11:59:59.987Z',
      detail: { code: 'ok', params: {} },
    };
    const docs = renderApi(
      input({
        events: [withMs],
        latestReset: withMs,
        checks: [check as RenderInput['checks'][number]],
        forecast: { ...input().forecast, last_global_reset_at: withMs.announced_at },
      }),
    );
    expect(JSON.parse(docs.find((d) => d.key === 'api/en/forecast.json')!.body).last_global_reset_at).toBe(
      '2026-11-20T10:00:00Z',
    );
    expect(JSON.parse(docs.find((d) => d.key === 'api/en/latest.json')!.body).last_source_check_at).toBe(
      '2026-11-21T11:59:59Z',
    );
  });

  it("writes each event and history document as the plain JSON of its content, histories listing the event documents' events", () => {
    const tricky = {
      ...testEvent('2026-11-18T10:00:00Z'),
      title: { en: 'Quote " backslash \\ line\nbreak \u2028 emoji 🎉', ko: '초기화' },
    };
    const events = [...input().events, tricky];
    const docs = renderApi(input({ events }));
    const body = (key: string) => docs.find((d) => d.key === key)!.body;
    for (const lang of ['en', 'ko']) {
      const history = JSON.parse(body(`api/${lang}/history.json`)) as { count: number; events: unknown[] };
      expect(history.count).toBe(3);
      for (const k of [
        `api/${lang}/history.json`,
        ...['global_reset', 'banked_grant', 'policy_change'].map((t) => `api/${lang}/history/${t}.json`),
      ]) {
        expect(JSON.stringify(JSON.parse(body(k)))).toBe(body(k));
      }
      events.forEach((e, i) => {
        const own = body(`api/${lang}/events/${e.id}.json`);
        expect(JSON.stringify(JSON.parse(own))).toBe(own);
        expect(history.events[i]).toEqual((JSON.parse(own) as { event: unknown }).event);
      });
    }
    expect(JSON.parse(body('api/en/history.json')).events[2].title).toBe(tricky.title.en);
  });
});
