// codex-reset.com's timeline, served on loopback from the real capture of 2026-09-11 (test/fixtures/real-upstreams/,
// provenance and facts in its README) and from hostile variants of it. Expected answers come from that README and the
// posts' words, quoted where they decide a record.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_ID_PATTERN } from '../../builder/contract.ts';
import { AnnouncementSchema, EventSchema, SourceLabelSchema } from '../../builder/model/schemas.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { fetchAllSources } from '../../builder/sources/index.ts';
import { fetchResetTimeline } from '../../builder/sources/reset-timeline.ts';
import { LOCAL_USER_AGENT } from '../../builder/net/user-agent.ts';
import { sendJson, startServer, testFetcher, type TestServer } from './helpers.ts';

const CAPTURE = readFileSync(
  new URL('../fixtures/real-upstreams/codex-reset/timeline.2026-09-11.captured.json', import.meta.url),
  'utf8',
);
type Rec = Record<string, unknown>;
const capturedEvents = (): Rec[] => (JSON.parse(CAPTURE) as { events: Rec[] }).events;
const recordOf = (id: string): Rec => capturedEvents().find((e) => e.id === id)!;

/** Shortly after the capture (about 14:41Z). */
const AS_OF = new Date('2026-09-11T15:00:00Z');

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const config = (base: string): SourceConfig => ({
  id: 'reset-timeline',
  kind: 'reset_timeline',
  url: `${base}/api/timeline`,
});

/** Serves `body` (the capture when absent) at every path; `status` and headers as given. */
async function serve(body: string | object = CAPTURE, status = 200, headers: Record<string, string> = {}) {
  server = await startServer((_req, res) => sendJson(res, body, status, headers));
  return config(server.url);
}
/** The capture with its records replaced. */
const page = (events: unknown[]) => ({ ...(JSON.parse(CAPTURE) as object), events });

async function read(asOf = AS_OF, body: string | object = CAPTURE) {
  return fetchResetTimeline(testFetcher(), await serve(body), asOf);
}
const labelOf = (r: Awaited<ReturnType<typeof read>>, id: string) => r.labels!.find((l) => l.record_id === id);
const eventOf = (r: Awaited<ReturnType<typeof read>>, id: string) => r.events!.find((e) => e.id === `rt-${id}`);
const tally = (values: readonly string[]) =>
  values.reduce<Record<string, number>>((t, v) => ({ ...t, [v]: (t[v] ?? 0) + 1 }), {});

describe('fetchResetTimeline on the 2026-09-11 capture', () => {
  it('reads every one of the 59 records into a label, with one request that names the project', async () => {
    const r = await read();
    expect(server!.requests).toHaveLength(1);
    expect(server!.requests[0]!.headers['user-agent']).toBe(LOCAL_USER_AGENT);
    expect(server!.requests[0]!.headers.accept).toBe('application/json');
    expect(r.check).toMatchObject({
      source: 'reset-timeline',
      kind: 'reset_timeline',
      ok: true,
      http_status: 200,
      items_read: 59,
      detail: { code: 'ok', params: {} },
    });
    expect(r.labels).toHaveLength(59);
    for (const l of r.labels!) expect(SourceLabelSchema.parse(l)).toEqual(l);
    // README: `reset` 43, `credits` 9, `boost` 6, `unlock` 1. Of the 43 resets, one is a reply ("Soon, but not
    // today") and two are `announcement_state: none` (08-29 20:43Z, 08-30), neither with an official window ahead.
    expect(tally(r.labels!.map((l) => l.reads_as))).toEqual({
      global_reset: 40,
      banked_grant: 9,
      not_a_reset: 8,
      unconfirmed: 2,
    });
    expect(tally(r.events!.map((e) => e.type))).toEqual({ global_reset: 40, banked_grant: 9 });
    for (const e of r.events!) {
      expect(EventSchema.parse(e)).toEqual(e);
      expect(e.id).toMatch(EVENT_ID_PATTERN);
      expect(e).toMatchObject({ status: 'archived', origin: 'reset_timeline', reason: 'other', same_as: [] });
      expect(e.sources).toEqual([
        { platform: 'X', url: expect.stringMatching(/^https:\/\/x\.com\/thsottiaux\/status\/\d+$/) },
      ]);
    }
    expect(r.announcement).toBeNull();
  });

  it('reads the July posts codex-resets.com calls `regular` as banked grants, as their words say', async () => {
    const r = await read();
    for (const [id, words] of [
      ['2076418567143408112', 'Added a banked reset to 500k ChatGPT Work/Codex users'],
      ['2076735790567338203', 'added a banked reset to every account'],
    ] as const) {
      expect(labelOf(r, id)).toMatchObject({
        reads_as: 'banked_grant',
        post_id: id,
        quote: expect.stringContaining(words),
      });
      expect(eventOf(r, id)).toMatchObject({ type: 'banked_grant', evidence_text: expect.stringContaining(words) });
    }
    expect(labelOf(r, '2076418567143408112')).toMatchObject({ at: '2026-07-12T21:28:59Z', label: 'credits/archive' });
  });

  it('reads 06-28 ("I have reset everyone\'s Codex usage limits. This is a hard reset") as a global reset', async () => {
    const r = await read();
    expect(labelOf(r, '2071381664853319742')).toMatchObject({ reads_as: 'global_reset', label: 'reset/archive' });
    expect(eventOf(r, '2071381664853319742')).toMatchObject({
      type: 'global_reset',
      time_basis: 'announcement',
      announced_at: '2026-06-28T23:54:07Z',
      observed_at: null,
      sources: [{ platform: 'X', url: 'https://x.com/thsottiaux/status/2071381664853319742' }],
    });
  });

  it('reads `boost` and `unlock` as not a reset, with no event, whatever the post says', async () => {
    const r = await read();
    // 04-07, 04-09, 04-17, 04-28 (`boost`; 04-28 "Reset Codex rate limits for ALL paid plans") and 2025-12-25 (`unlock`).
    const ids = ['2041655710346572085', '2042299371602264319', '2044943514832871564', '2048997818673537399'];
    for (const id of [...ids, '2004100061933064395']) {
      expect(labelOf(r, id), id).toMatchObject({ reads_as: 'not_a_reset' });
      expect(eventOf(r, id), id).toBeUndefined();
    }
    expect(labelOf(r, '2048997818673537399')!.label).toBe('boost/archive');
    expect(labelOf(r, '2004100061933064395')!.label).toBe('unlock/archive');
  });

  it('reads the 08-29 reply "Soon, but not today" as not a reset', async () => {
    const r = await read();
    expect(labelOf(r, '2093551005711679557')).toMatchObject({
      reads_as: 'not_a_reset',
      label: 'reset/none/reply/live',
      at: '2026-08-29T04:07:10Z',
    });
    expect(eventOf(r, '2093551005711679557')).toBeUndefined();
  });

  it('leaves the live posts the tracker has not confirmed (08-29 20:43Z, 08-30 "will land at 6pm PST") unconfirmed', async () => {
    const r = await read();
    for (const id of ['2093801758665715784', '2094144275957350900']) {
      expect(labelOf(r, id), id).toMatchObject({ reads_as: 'unconfirmed', label: 'reset/none/live' });
      expect(eventOf(r, id), id).toBeUndefined();
    }
  });

  it('keeps 09-08 as the operator observation at 01:34Z and the post at 04:05:53Z', async () => {
    const r = await read();
    expect(eventOf(r, '2097043464538264003')).toMatchObject({
      type: 'global_reset',
      time_basis: 'observation',
      announced_at: null,
      observed_at: '2026-09-08T01:34:00Z',
      sources: [{ platform: 'X', url: 'https://x.com/thsottiaux/status/2097043464538264003' }],
    });
    expect(labelOf(r, '2097043464538264003')).toMatchObject({
      label: 'reset/announced/operator-observed',
      at: '2026-09-08T01:34:00Z',
      post_id: '2097043464538264003',
    });
    expect(eventOf(r, '2097174560412246215')).toMatchObject({
      type: 'global_reset',
      time_basis: 'announcement',
      announced_at: '2026-09-08T04:05:53Z',
      observed_at: null,
    });
  });

  it("quotes only a record's `text`, never its `summary` (the service's own paraphrase)", async () => {
    const r = await read();
    // 09-08 04:05:53Z has no `text`; its summary reads "All reset for everyone. Enjoy the week with Astra."
    expect(labelOf(r, '2097174560412246215')!.quote).toBe('');
    expect(eventOf(r, '2097174560412246215')!.evidence_text).toBe('');
    const quoted = [...r.labels!.map((l) => l.quote), ...r.events!.map((e) => e.evidence_text)].join('\n');
    expect(quoted).not.toContain('All reset for everyone');
    expect(quoted).not.toContain('Never gonna give you up');
    // Only the 9 `credits` records carry `text`.
    expect(r.labels!.filter((l) => l.quote !== '')).toHaveLength(9);
  });

  it('refuses the records dated after an earlier as-of, counting them', async () => {
    // As of 03:00Z on 09-08, two records lie ahead: 09-09 and 09-08 04:05:53Z.
    const r = await read(new Date('2026-09-08T03:00:00Z'));
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 57,
      detail: { code: 'ok_with_rejections', params: { rejected: 2, reasons: 'future_date 2' } },
    });
    expect(eventOf(r, '2097174560412246215')).toBeUndefined();
    expect(labelOf(r, '2097174560412246215')).toBeUndefined();
    expect(eventOf(r, '2097043464538264003')).toMatchObject({ observed_at: '2026-09-08T01:34:00Z' });
  });

  it('is the reader fetchAllSources uses for a reset_timeline source', async () => {
    const [r] = await fetchAllSources([await serve()], testFetcher(), AS_OF);
    expect(r!.check).toMatchObject({ kind: 'reset_timeline', ok: true, items_read: 59 });
    expect(r!.labels).toHaveLength(59);
  });
});

describe('an announced reset with an official window', () => {
  // The 08-30 post with a window reconstructed from its words: "Your Codex and ChatGPT Work reset will land at 6pm
  // PST." (6 pm PST on 08-30 is 02:00Z on 08-31), and its words as `text`.
  const announced = (window: Rec | null, over: Rec = {}) => ({
    ...recordOf('2094144275957350900'),
    text: 'Your Codex and ChatGPT Work reset will land at 6pm PST.',
    official_window: window,
    ...over,
  });
  const sixPm = {
    label: '6pm PST',
    start_at: '2026-08-31T02:00:00Z',
    target_kind: 'time',
    target_at: '2026-08-31T02:00:00Z',
  };

  it('becomes the announcement while its window lies ahead, and is unconfirmed once it has passed', async () => {
    const r = await read(new Date('2026-08-30T20:00:00Z'), page([announced(sixPm)]));
    expect(AnnouncementSchema.parse(r.announcement)).toEqual({
      id: 'rt-2094144275957350900',
      upstream_id: '2094144275957350900',
      type: 'global_reset',
      announced_at: '2026-08-30T19:24:37Z',
      scheduled_for: '2026-08-31T02:00:00Z',
      text: 'Your Codex and ChatGPT Work reset will land at 6pm PST.',
      source: { platform: 'X', url: 'https://x.com/thsottiaux/status/2094144275957350900' },
      first_seen_at: '2026-08-30T20:00:00Z',
    });
    expect(r.labels).toEqual([expect.objectContaining({ reads_as: 'announcement' })]);
    expect(r.events).toEqual([]);
    await server!.close();
    const later = await read(new Date('2026-08-31T03:00:00Z'), page([announced(sixPm)]));
    expect(later.announcement).toBeNull();
    expect(later.labels).toEqual([expect.objectContaining({ reads_as: 'unconfirmed' })]);
  });

  it('takes the start when the window names no target, and keeps the newest of two announcements', async () => {
    const older = announced(
      { label: 'later today', start_at: '2026-08-31T01:00:00Z' },
      {
        id: '2094000000000000000',
        url: 'https://x.com/thsottiaux/status/2094000000000000000',
        announced_at: '2026-08-30T09:52:08Z',
      },
    );
    const r = await read(new Date('2026-08-30T20:00:00Z'), page([older, announced(sixPm)]));
    expect(r.announcement).toMatchObject({ id: 'rt-2094144275957350900', scheduled_for: '2026-08-31T02:00:00Z' });
    expect(r.labels!.map((l) => l.reads_as)).toEqual(['announcement', 'announcement']);
  });

  it('never announces a window more than 60 days ahead or without a zone; those count as rejections', async () => {
    const far = announced({ start_at: '2027-01-01T00:00:00Z' });
    const zoneless = announced({ start_at: '2026-08-31T02:00:00' }, { id: '2094144275957350901' });
    const r = await read(new Date('2026-08-30T20:00:00Z'), page([far, zoneless]));
    expect(r.announcement).toBeNull();
    expect(r.labels!.map((l) => l.reads_as)).toEqual(['unconfirmed', 'unconfirmed']);
    expect(r.check.detail).toMatchObject({
      code: 'ok_with_rejections',
      params: { reasons: 'no_timezone 1, future_date 1' },
    });
  });

  it('makes no announcement of a reset the tracker already confirmed: that is an event', async () => {
    const r = await read(
      new Date('2026-08-30T20:00:00Z'),
      page([announced(sixPm, { announcement_state: 'announced' })]),
    );
    expect(r.announcement).toBeNull();
    expect(r.events).toEqual([expect.objectContaining({ id: 'rt-2094144275957350900', type: 'global_reset' })]);
  });
});

describe('hostile timelines', () => {
  const base = () => recordOf('2071381664853319742');
  const rec = (id: string, over: Rec) => ({ ...base(), id, ...over });

  it('fails on a body that is not JSON, or not a timeline, keeping no data', async () => {
    const bad = await read(AS_OF, '<html>not json</html>');
    expect(bad.check).toMatchObject({ ok: false, http_status: 200, detail: { code: 'invalid_json' } });
    expect(bad.labels).toBeUndefined();
    await server!.close();
    const shape = await read(AS_OF, { updated_at: '2026-09-11T14:41:05Z', events: 'none' });
    expect(shape.check).toMatchObject({ ok: false, detail: { code: 'schema_mismatch', params: { path: 'events' } } });
  });

  it('refuses a body over the JSON budget, and an array of 10,000 records, before parsing them', async () => {
    const padding = 'x'.repeat(1100 * 1024);
    const big = await read(AS_OF, page([{ ...base(), text: padding }]));
    expect(big.check).toMatchObject({ ok: false, detail: { code: 'body_too_large', params: { limit_kib: 1024 } } });
    await server!.close();
    const many = Array.from({ length: 10_000 }, (_, i) => ({ id: String(i), group: 'reset' }));
    const flood = await read(AS_OF, page(many));
    expect(flood.check).toMatchObject({ ok: false, detail: { code: 'too_many_items', params: { max: 5000 } } });
  });

  it('reads at most 1,000 records, newest first, counting the rest', async () => {
    const many = Array.from({ length: 1500 }, (_, i) => ({
      id: `r${i}`,
      group: 'boost',
      announced_at: '2026-09-01T00:00:00Z',
    }));
    const r = await read(AS_OF, page(many));
    expect(r.labels).toHaveLength(1000);
    expect(r.labels![999]!.record_id).toBe('r999');
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 1000,
      detail: {
        code: 'record_cap_reached',
        params: { max: 1000, rejected: 500, reasons: 'over_record_cap 500', noted: 'no_link 1000' },
      },
    });
  });

  it('refuses records one by one: a non-http link, an impossible or future date, a missing field', async () => {
    const r = await read(
      AS_OF,
      page([
        rec('1', {}),
        rec('2', { url: 'javascript:alert(1)' }),
        rec('3', { url: 'https://user:pass@x.com/a/status/3' }),
        rec('4', { announced_at: '9999-12-31T00:00:00Z' }),
        rec('5', { announced_at: '2026-09-11T16:00:00Z' }),
        rec('6', { announced_at: '2001-01-01T00:00:00Z' }),
        rec('7', { announced_at: 'yesterday' }),
        rec('8', { announced_at: '2026-06-28T23:54:07' }),
        { ...base(), id: undefined },
        { ...base(), group: undefined },
      ]),
    );
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 1,
      detail: {
        code: 'ok_with_rejections',
        params: {
          rejected: 9,
          reasons: 'invalid_record 2, bad_url 2, bad_date 1, no_timezone 1, future_date 2, before_era 1',
        },
      },
    });
    expect(r.labels!.map((l) => l.record_id)).toEqual(['1']);
  });

  it('never takes a far-future time from a crafted post id: the record keeps its own time, the post time is counted', async () => {
    const r = await read(
      AS_OF,
      page([
        rec('crafted', {
          url: 'https://x.com/a/status/99999999999999999999',
          announced_at: '2026-09-10T09:00:00Z',
          effective_at: '2026-09-10T09:30:00Z',
        }),
      ]),
    );
    expect(r.check.detail).toMatchObject({ code: 'ok_with_rejections', params: { reasons: 'future_date 1' } });
    expect(r.events![0]).toMatchObject({
      time_basis: 'announcement',
      announced_at: '2026-09-10T09:00:00Z',
      effective_at: '2026-09-10T09:30:00Z',
      sources: [{ platform: 'X', url: 'https://x.com/a/status/99999999999999999999' }],
    });
    expect(r.labels![0]).toMatchObject({ post_id: null, at: '2026-09-10T09:00:00Z' });
  });

  it('fails a page with no valid record as a changed API, naming the first bad path', async () => {
    const r = await read(
      AS_OF,
      page([
        { ...base(), group: 7 },
        { ...base(), announced_at: 'soon' },
      ]),
    );
    expect(r.check).toMatchObject({
      ok: false,
      detail: { code: 'schema_mismatch', params: { path: 'events[0].group' } },
    });
    expect(r.events).toBeUndefined();
  });

  it('keeps a group it does not know as not a reset, noted in the check', async () => {
    const r = await read(AS_OF, page([rec('1', { group: 'outage' }), rec('2', { group: 'constructor' })]));
    expect(r.events).toEqual([]);
    expect(r.labels!.map((l) => [l.label, l.reads_as])).toEqual([
      ['outage/archive', 'not_a_reset'],
      ['constructor/archive', 'not_a_reset'],
    ]);
    expect(r.check.detail).toEqual({ code: 'ok_with_notes', params: { noted: 'unknown_group 2' } });
  });

  it('cleans text, labels and ids: markup and control characters out, evidence capped at 4,000 characters', async () => {
    const huge = `Reset\u0007 <script>alert(1)</script><b>done</b>\u202E\n${'é'.repeat(20_000)}`;
    const r = await read(
      AS_OF,
      page([
        rec('1', {
          group: 'credits',
          text: huge,
          reset_kind: '<img src=x onerror=alert(1)>banked\u200B',
          source: 'archive\u0000',
          id: 'ID With Spaces/1',
        }),
      ]),
    );
    const [label] = r.labels!;
    expect(label!.label).toBe('credits/banked/archive');
    expect(label!.record_id).toMatch(/^id-with-spaces-1-[0-9a-f]{8}$/);
    // Each tag is a space, a control or format character nothing; line breaks stay.
    expect(label!.quote).toBe(`Reset   done \n${'é'.repeat(20_000)}`.slice(0, 4000));
    expect(r.events![0]!.evidence_text).toBe(label!.quote);
    expect(r.events![0]!.id).toMatch(EVENT_ID_PATTERN);
  });

  it('shows of its URL only the scheme and the host', async () => {
    await serve();
    const secret = {
      ...config(server!.url),
      url: `${server!.url.replace('//', '//u:p@')}/private-path/api/timeline?key=s3cret`,
    };
    const r = await fetchResetTimeline(testFetcher(), secret, AS_OF);
    expect(r.check.url).toBe(`${server!.url}/…`);
    expect(JSON.stringify(r)).not.toMatch(/s3cret|private-path|u:p/);
  });
});

describe('the terms: one request a run, 429 and Retry-After honoured', () => {
  it('asks once on a 429 and carries the wait it asked for, in seconds, in the check', async () => {
    const r = await fetchResetTimeline(
      testFetcher(),
      await serve({ error: 'slow down' }, 429, { 'retry-after': '2' }),
      AS_OF,
    );
    expect(server!.requests).toHaveLength(1);
    expect(r.check).toMatchObject({
      ok: false,
      http_status: 429,
      items_read: 0,
      detail: { code: 'rate_limited_wait', params: { retry_after_s: 2 } },
    });
    expect(r.labels).toBeUndefined();
  });

  it('reads a Retry-After HTTP date as the seconds until then', async () => {
    const at = new Date(Date.now() + 3_600_000).toUTCString();
    const r = await fetchResetTimeline(testFetcher(), await serve({}, 429, { 'retry-after': at }), AS_OF);
    expect(server!.requests).toHaveLength(1);
    expect(r.check.detail.code).toBe('rate_limited_wait');
    expect(Number(r.check.detail.params.retry_after_s)).toBeGreaterThan(3500);
    expect(Number(r.check.detail.params.retry_after_s)).toBeLessThanOrEqual(3600);
  });

  it('asks once on a 503 and on a time-out, although the fetcher would retry other sources', async () => {
    const unavailable = await fetchResetTimeline(testFetcher(), await serve({}, 503, { 'retry-after': '1' }), AS_OF);
    expect(server!.requests).toHaveLength(1);
    expect(unavailable.check).toMatchObject({ ok: false, http_status: 503, detail: { code: 'http_status' } });
    await server!.close();
    server = await startServer(() => undefined);
    const silent = await fetchResetTimeline(testFetcher({ timeoutMs: 200 }), config(server.url), AS_OF);
    expect(server.requests).toHaveLength(1);
    expect(silent.check).toMatchObject({ ok: false, http_status: null, detail: { code: 'timeout' } });
  });
});
