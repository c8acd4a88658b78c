// The real build against two trackers and X's oEmbed endpoint as they really answer (replay.ts): codex-reset.com's
// timeline of 2026-09-11 (captured byte for byte), codex-resets.com's records, and X's answer for an official post.
// Every expected answer comes from the posts' words, the services' documentation or the capture's README
// (test/fixtures/real-upstreams/README.md):
// - 2026-07-12 "Added a banked reset to 500k users ..." and 2026-07-13 "... added a banked reset to everyone's account":
//   banked grants; codex-resets.com says `regular`, codex-reset.com `credits`;
// - 2026-08-31: two posts of @thsottiaux five minutes apart (02:29Z, 02:34Z) about one reset ("we have now reset usage
//   for all paid subscriptions");
// - 2026-09-08: codex-reset.com's operator saw the reset at 01:34Z, the post "All reset for everyone." is 04:05:53Z;
// - 2026-04-07, 04-09, 04-17, 04-28 are `boost` and 2025-12-25 `unlock` at codex-reset.com, global resets in the ledger;
// - 2026-07-29 and 2026-08-27 are absent from codex-reset.com;
// - 2026-09-26T18:17:54Z "Resets all propagated. That will be all.": after the curated archive ends.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LANGS } from '../../builder/contract.ts';
import { parseCalendar } from '../helpers/follow.ts';
import { build, checks, history, post, signals, type Built, type EventDoc } from './build.ts';
import {
  captureJson,
  OEMBED_0908,
  oembedAnswer,
  SCENARIOS,
  TIMELINE_CAPTURE,
  TWO_TRACKERS,
  type Scenario,
} from './replay.ts';

interface Verified extends EventDoc {
  status: string;
  agreement: string;
  recorded_by: { origin: string; record_id: string; label: string; reads_as: string }[];
  verification: {
    state: string;
    reason: string | null;
    post_id: string | null;
    author: string | null;
    read_at: string | null;
  } | null;
  verification_notes: string | null;
}
interface Today {
  state: string;
  reset: boolean | null;
  event_ids: string[];
  explanation: string;
}
interface Latest {
  reset: boolean | null;
  today: Today;
  latestVerifiedReset: { id: string; status: string } | null;
  meta: { credits: { name: string; url: string; notice: string }[] };
}

const latest = (b: Built, lang = 'en') => b.doc<Latest>(`api/${lang}/latest.json`);
const events = async (b: Built) => (await history(b)) as Verified[];
const on = (es: Verified[], date: string) =>
  es.filter((e) => e.type === 'global_reset' && e.occurred_at.startsWith(date));
const oembedReads = (b: Built, id?: string) =>
  b.replay.requests.filter((r) => r.path.startsWith('/oembed') && (id === undefined || r.path.includes(id))).length;

/** 2026-09-08: the ledger, codex-resets.com and codex-reset.com, X answering for the day's post as given. */
const on0908 = (answer: Scenario['oembed']): Scenario => ({
  ...SCENARIOS['2026-09-22'],
  status: 'codex-resets/v1-status.2026-09-17.captured.json',
  timeline: TIMELINE_CAPTURE,
  ...(answer === undefined ? {} : { oembed: answer }),
});
const POST_0908 = '2097174560412246215';
const OEMBED = { body: captureJson(OEMBED_0908) };

describe('2026-09-11: both trackers and the ledger', () => {
  it('makes one event of each reset across every source, and says which sources recorded it', async () => {
    const b = await build(TWO_TRACKERS['2026-09-11'], '2026-09-11T15:00:00Z', { RESET_POST_EMBED_URL: '' });
    expect(b.code).toBe(0);
    const es = await events(b);
    // 2026-09-08: the operator's observation (01:34Z) and the post (04:05:53Z) are one reset, that all three record.
    const [sep8, ...more] = on(es, '2026-09-08');
    expect(more).toEqual([]);
    expect(new Set(sep8!.recorded_by.map((r) => r.origin))).toEqual(
      new Set(['ledger', 'service_resets', 'reset_timeline']),
    );
    expect(sep8!.recorded_by.map((r) => r.record_id)).toEqual(
      expect.arrayContaining(['rt-2097043464538264003', 'rt-2097174560412246215']),
    );
    expect(sep8!.agreement).toBe('agreed');
    // 2026-08-31: two posts five minutes apart, one reset.
    const aug31 = on(es, '2026-08-31');
    expect(aug31).toHaveLength(1);
    expect(aug31[0]!.recorded_by.map((r) => r.record_id)).toContain('rt-2094252447271366730');
    // Different days are never one reset: each ledger reset of the year stays its own event.
    const ledger = es.filter((e) => e.type === 'global_reset' && e.origin === 'ledger');
    expect(new Set(ledger.map((e) => e.id)).size).toBe(ledger.length);
  });

  it('finds the 07-12 and 07-13 banked grants the first tracker calls regular, without a review, naming who says what', async () => {
    const b = await build(TWO_TRACKERS['2026-09-11'], '2026-09-11T15:00:00Z', { RESET_POST_EMBED_URL: '' });
    const open = await signals(b);
    for (const id of ['2076418567143408112', '2076735790567338203']) {
      const s = open.find((x) => x.id === `type-disagreement-${id}`) as unknown as { title: string; labels: unknown[] };
      expect(s.title).toContain('codex-resets.com: regular');
      expect(s.title).toMatch(/codex-reset\.com: credits/);
      expect(s.labels).toContainEqual({
        origin: 'reset_timeline',
        label: expect.stringMatching(/^credits/),
        reads_as: 'banked_grant',
      });
    }
    const es = await events(b);
    expect(on(es, '2026-07-12')).toEqual([]);
    expect(on(es, '2026-07-13')).toEqual([]);
  });

  it("lists codex-reset.com's boost and unlock labels of ledger resets as disagreements, and its two missing resets", async () => {
    const b = await build(TWO_TRACKERS['2026-09-11'], '2026-09-11T15:00:00Z', { RESET_POST_EMBED_URL: '' });
    const open = await signals(b);
    for (const [id, word] of [
      ['2041655710346572085', 'boost'],
      ['2042299371602264319', 'boost'],
      ['2044943514832871564', 'boost'],
      ['2048997818673537399', 'boost'],
      ['2004100061933064395', 'unlock'],
    ] as const) {
      const s = open.find((x) => x.id === `type-disagreement-${id}`) as unknown as { title: string } | undefined;
      expect(s?.title, id).toContain(`codex-reset.com: ${word}`);
    }
    const missing = open.filter((s) => s.kind === 'tracker_missing').map((s) => s.event_ids);
    const es = await events(b);
    const dated = (id: string) => es.find((e) => e.id === id)!.occurred_at.slice(0, 10);
    expect(missing.map((ids) => dated(ids![0]!)).sort()).toEqual(['2026-07-29', '2026-08-27']);
    // A disputed reset curated history holds keeps its type and still counts for the forecast.
    const apr7 = on(es, '2026-04-07');
    expect(apr7.map((e) => [e.agreement, e.status])).toEqual([['disputed', 'archived']]);
  });

  it('reads the official posts a few per run, remembers them, and verifies the year over a few runs', async () => {
    const scenario = TWO_TRACKERS['2026-09-11'];
    const b = await build(scenario, '2026-09-11T15:00:00Z');
    const perRun = [oembedReads(b)];
    let last = b;
    for (let run = 1; run < 10 && perRun.at(-1)! > 0; run++) {
      const at = new Date(Date.parse('2026-09-11T15:00:00Z') + run * 15 * 60_000).toISOString();
      last = await build(scenario, at, {}, b.root);
      perRun.push(oembedReads(last));
    }
    // Bounded: never more than 6 reads a run, none once every candidate has an answer.
    expect(Math.max(...perRun)).toBeLessThanOrEqual(6);
    expect(perRun.at(-1)).toBe(0);
    const es = await events(last);
    const year = es.filter((e) => e.type === 'global_reset' && Date.parse(e.occurred_at) >= Date.parse('2025-09-11'));
    // Every reset two sources agree on is verified (X's answers carry the posts' words), and nothing else is.
    const agreed = year.filter((e) => e.agreement === 'agreed' && e.sources.some((s) => s.url.includes('/status/')));
    expect(
      year
        .filter((e) => e.status === 'verified')
        .map((e) => e.id)
        .sort(),
    ).toEqual(agreed.map((e) => e.id).sort());
    expect(agreed.length).toBeGreaterThan(30);
    for (const e of year.filter((x) => x.agreement === 'disputed')) expect(e.verification?.reason).toBe('disputed');
  });
});

describe('2026-09-26: the first tracker down during a reset after the archive ends', () => {
  it('keeps today known from the second tracker alone, a record, not verified, and says which source was read', async () => {
    const b = await build(TWO_TRACKERS['2026-09-26-outage'], '2026-09-26T19:00:00Z');
    const l = await latest(b);
    expect(l.today).toMatchObject({ state: 'recorded_today', reset: true, event_ids: ['rt-2103911959544610829'] });
    expect(l.today.explanation).toContain('recorded by codex-reset.com');
    const e = (await b.doc<{ event: Verified & { title: string } }>('api/en/events/rt-2103911959544610829.json')).event;
    // No source states a reason: the title says what is known, in every language.
    for (const lang of LANGS) {
      const common = JSON.parse(readFileSync(new URL(`../../locales/${lang}/common.json`, import.meta.url), 'utf8'));
      const doc = await b.doc<{ event: { title: string } }>(`api/${lang}/events/rt-2103911959544610829.json`);
      expect(doc.event.title, lang).toBe(common.title.global_reset_unstated);
      expect(doc.event.title, lang).not.toContain(common.reason.other);
    }
    expect(e.title).toBe('Codex usage limits reset for everyone');
    expect(e).toMatchObject({ status: 'archived', agreement: 'single_source' });
    expect(e.verification).toMatchObject({ state: 'not_verified', reason: 'single_source' });
    const c = await checks(b);
    expect(c.find((x) => x.source === 'reset-tracker')).toMatchObject({ ok: false, http_status: 503 });
    expect(c.find((x) => x.source === 'reset-timeline')).toMatchObject({ ok: true, http_status: 200 });
    // codex-reset.com's terms: "Data: codex-reset.com" with a link wherever its data is passed on.
    expect(l.meta.credits).toContainEqual({
      name: 'codex-reset.com',
      url: 'https://codex-reset.com/',
      notice: 'Data: codex-reset.com',
    });
    expect(await b.text('api/en/index.html')).toContain('<a href="https://codex-reset.com/">Data: codex-reset.com</a>');
    expect(await b.text('api/en/feed.atom')).toContain('Data: codex-reset.com (https://codex-reset.com/)');
    const { cal } = parseCalendar(await b.text('api/en/calendar.ics'));
    expect(String(cal.getFirstPropertyValue('x-wr-caldesc') ?? cal.getFirstPropertyValue('description'))).toContain(
      'Data: codex-reset.com (https://codex-reset.com/)',
    );
  });

  it('earlier that day, with no reset yet, answers "no reset" from the second tracker while the first is down', async () => {
    const b = await build(TWO_TRACKERS['2026-09-26-outage'], '2026-09-26T12:00:00Z');
    const l = await latest(b);
    expect(l.today).toMatchObject({ state: 'no_verified_reset', reset: false });
    expect(l.today.explanation).toContain(new URL(b.replay.env.RESET_TIMELINE_URL!).host);
    const alone = await build(TWO_TRACKERS['2026-09-26-outage'], '2026-09-26T12:00:00Z', { RESET_TIMELINE_URL: '' });
    expect((await latest(alone)).today).toMatchObject({ state: 'unknown', reset: null });
  });

  it('without the second tracker the same outage leaves today unknown, and with both down too', async () => {
    const alone = await build(TWO_TRACKERS['2026-09-26-outage'], '2026-09-26T19:00:00Z', { RESET_TIMELINE_URL: '' });
    expect((await latest(alone)).today).toMatchObject({ state: 'unknown', reset: null });
    const both = await build({ ...TWO_TRACKERS['2026-09-26-outage'], timeline: 503 }, '2026-09-26T19:00:00Z');
    expect((await latest(both)).today).toMatchObject({ state: 'unknown', reset: null });
  });
});

describe('2026-09-08: the service reads the official post itself', () => {
  it('confirms today once both trackers agree and X returns the post by an official account, in every language', async () => {
    const b = await build(on0908({ [POST_0908]: OEMBED }), '2026-09-08T12:00:00Z');
    const l = await latest(b);
    expect(l.today.state).toBe('confirmed_today');
    expect(l.reset).toBe(true);
    expect(l.latestVerifiedReset).toMatchObject({ status: 'verified' });
    const e = (await b.doc<{ event: Verified }>(`api/en/events/${l.latestVerifiedReset!.id}.json`)).event;
    expect(e.verification).toMatchObject({
      state: 'verified',
      reason: null,
      post_id: POST_0908,
      author: 'thsottiaux',
      read_at: '2026-09-08T12:00:00Z',
    });
    // The post reader is a source check of its own, translated like every other.
    // X answered every read: the day's post, and 404 for the five history posts this scenario does not serve.
    expect((await checks(b)).find((c) => c.source === 'post-embed')).toMatchObject({
      ok: true,
      items_read: 1,
      detail_code: 'ok_posts_not_found',
    });
    const de = await b.doc<{ source_checks: { source: string; detail: string }[] }>('api/de/status.json');
    expect(de.source_checks.find((c) => c.source === 'post-embed')?.detail).toBeTruthy();
    // Its document changed when it was verified, and says so.
    const doc = await b.doc<{ meta: { updated_at: string } }>(`api/en/events/${e.id}.json`);
    expect(doc.meta.updated_at).toBe('2026-09-08T12:00:00Z');
    for (const lang of LANGS) {
      const notes = (await b.doc<{ event: Verified }>(`api/${lang}/events/${e.id}.json`)).event.verification_notes!;
      expect(notes, lang).toContain(POST_0908);
      expect(notes, lang).toContain('2026-09-08T12:00:00Z');
      expect(notes, lang).toContain('@thsottiaux');
    }
    // Today's post first, then at most five of the history's; the day's post once.
    expect(b.replay.requests.find((r) => r.path.startsWith('/oembed'))?.path).toContain(POST_0908);
    expect(oembedReads(b, POST_0908)).toBe(1);
    expect(oembedReads(b)).toBeLessThanOrEqual(6);
  });

  it('reads a post once: a later run asks X nothing more and the reset stays verified under its id', async () => {
    const first = await build(on0908({ [POST_0908]: OEMBED }), '2026-09-08T12:00:00Z');
    const id = (await latest(first)).latestVerifiedReset!.id;
    const again = await build(on0908({ [POST_0908]: OEMBED }), '2026-09-08T12:15:00Z', {}, first.root);
    expect(oembedReads(again, POST_0908)).toBe(0);
    expect((await latest(again)).latestVerifiedReset?.id).toBe(id);
  });

  it('a reset verified later keeps its id', async () => {
    const refused = await build(on0908({ [POST_0908]: 429 }), '2026-09-08T12:00:00Z');
    const before = await latest(refused);
    expect(before.today.state).toBe('recorded_today');
    const [id] = before.today.event_ids;
    const e = (await refused.doc<{ event: Verified }>(`api/en/events/${id}.json`)).event;
    expect(e.verification).toMatchObject({ state: 'not_verified', reason: 'post_unreadable' });
    // The back-off has passed 15 minutes later: X answers, the same event is verified.
    const later = await build(on0908({ [POST_0908]: OEMBED }), '2026-09-08T12:15:00Z', {}, refused.root);
    expect((await latest(later)).today).toMatchObject({ state: 'confirmed_today', event_ids: [id] });
  });

  it.each([
    ['a post X says does not exist', undefined, 'post_not_found'],
    [
      'a post by another account',
      oembedAnswer(POST_0908, 'All reset for everyone. Enjoy the week with Astra.', 'someone_else'),
      'author_not_official',
    ],
    [
      'a post whose words are not the ones the sources quote',
      oembedAnswer(POST_0908, 'There is a place and a time for resets. Soon, but not today'),
      'text_differs',
    ],
  ] as const)('leaves %s recorded, not verified, with the reason', async (_, answer, reason) => {
    const b = await build(on0908(answer === undefined ? {} : { [POST_0908]: answer }), '2026-09-08T12:00:00Z');
    const l = await latest(b);
    expect(l.today.state).toBe('recorded_today');
    expect(l.latestVerifiedReset).toBeNull();
    const e = (await b.doc<{ event: Verified }>(`api/en/events/${l.today.event_ids[0]}.json`)).event;
    expect(e.verification?.reason).toBe(reason);
    expect(e.sources.map((s) => s.url)).toContain(post(POST_0908));
  });
});
