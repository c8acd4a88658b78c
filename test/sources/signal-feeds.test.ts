import { formatInstant } from '../../builder/contract.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applySourceResults } from '../../builder/model/apply.ts';
import { emptyState, SignalSchema, type State } from '../../builder/model/schemas.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { fetchSignalFeed, isResetNews, MAX_FEED_ITEMS, parseFeed } from '../../builder/sources/signal-feeds.ts';
import { AS_OF, fixture, startServer, testFetcher, type TestServer } from './helpers.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(body: string, type: string): Promise<SourceConfig> {
  server = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': type });
    res.end(body);
  });
  return { id: 'feed-1', kind: 'signal_feed', url: `${server.url}/feed` };
}

function parsed(body: string) {
  const r = parseFeed(body, AS_OF);
  if (!r.ok) throw new Error(`parse failed: ${r.detail.code}`);
  return r.feed;
}

describe('fetchSignalFeed', () => {
  it('reads RSS 2.0, turning only reset news into signals awaiting review', async () => {
    const r = await fetchSignalFeed(testFetcher(), await serve(fixture('feed-rss.xml'), 'application/rss+xml'), AS_OF);
    expect(r.check).toMatchObject({ ok: true, http_status: 200, items_read: 3, detail: { code: 'ok', params: {} } });
    expect(r.check.latency_ms).not.toBeNull();
    expect(r.signals).toHaveLength(1);
    const s = SignalSchema.parse(r.signals![0]);
    expect(s).toMatchObject({
      kind: 'feed_item',
      source: 'feed-1',
      title: 'Codex usage limits reset for everyone & more',
      url: 'https://news.example.test/posts/1',
      published_at: '2026-11-21T09:30:00Z',
      first_seen_at: formatInstant(AS_OF),
      review: 'awaiting_review',
      promoted_to: null,
    });
    // CDATA kept as text (even a stray </item>), then markup and scripts stripped.
    expect(s.excerpt).toBe('OpenAI says it reset Codex limits after the outage. inside CDATA is text.');
    expect(s.id).toMatch(/^feed-item-[0-9a-f]{24}$/);
  });

  it('reads Atom, where the feed being about Codex gives the context', async () => {
    const r = await fetchSignalFeed(
      testFetcher(),
      await serve(fixture('feed-atom.xml'), 'application/atom+xml'),
      AS_OF,
    );
    expect(r.check).toMatchObject({ ok: true, items_read: 2 });
    expect(r.signals).toHaveLength(1);
    expect(r.signals![0]).toMatchObject({
      title: 'Limits reset again?',
      excerpt: 'Limits were reset about 10 minutes ago, check yours & report.',
      url: 'https://forum.example.test/r/codex/comments/aaa111/limits_reset/',
      published_at: '2026-11-21T10:58:30Z',
    });
  });

  it('reads JSON Feed 1.1 and drops non-http links, counting them', async () => {
    const r = await fetchSignalFeed(testFetcher(), await serve(fixture('feed.json'), 'application/feed+json'), AS_OF);
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 2,
      detail: { code: 'ok_with_rejections', params: { rejected: 1, reasons: 'bad_url 1' } },
    });
    expect(r.signals).toEqual([
      expect.objectContaining({
        title: 'How Codex resets work',
        url: 'https://blog.example.test/codex-resets-explained',
        published_at: '2026-11-19T21:00:00Z',
        excerpt: 'When OpenAI resets Codex usage limits, everyone starts fresh.',
      }),
    ]);
    expect(parsed(fixture('feed.json')).items[1]!.link).toBeNull();
  });

  it('fails a document that is no feed, and one of the wrong shape, keeping stored signals', async () => {
    const before = await fetchSignalFeed(
      testFetcher(),
      await serve(fixture('feed-rss.xml'), 'application/rss+xml'),
      AS_OF,
    );
    await server!.close();
    const state: State = applySourceResults(emptyState(), [before], [], AS_OF);
    expect(state.signals).toHaveLength(1);

    const html = await fetchSignalFeed(
      testFetcher(),
      await serve('<!doctype html><html><body>hi</body></html>', 'text/html'),
      AS_OF,
    );
    expect(html.check).toMatchObject({
      ok: false,
      http_status: 200,
      items_read: 0,
      detail: { code: 'unknown_feed_format', params: {} },
    });
    await server!.close();
    const shape = await fetchSignalFeed(
      testFetcher(),
      await serve('{"version":"https://jsonfeed.org/version/1.1","items":[{"title":"x"}]}', 'application/json'),
      AS_OF,
    );
    expect(shape.check).toMatchObject({
      ok: false,
      detail: { code: 'schema_mismatch', params: { path: 'items[0].id' } },
    });
    await server!.close();
    const badJson = await fetchSignalFeed(testFetcher(), await serve('{"version":', 'application/json'), AS_OF);
    expect(badJson.check.detail.code).toBe('invalid_json');

    const next = applySourceResults(state, [html, shape, badJson], [], new Date(AS_OF.getTime() + 900_000));
    expect(next.signals).toEqual(state.signals);
  });

  it('fails a feed over the body cap', async () => {
    const big = `<rss><channel>${'<item><title>codex reset</title></item>'.repeat(200)}</channel></rss>`;
    const r = await fetchSignalFeed(
      testFetcher({ maxBodyBytes: 1024 }),
      await serve(big, 'application/rss+xml'),
      AS_OF,
    );
    expect(r.check).toMatchObject({
      ok: false,
      http_status: 200,
      detail: { code: 'body_too_large', params: { limit_kib: 1 } },
    });
    expect(r.signals).toBeUndefined();
  });
});

describe('parseFeed on untrusted text', () => {
  it('strips control characters, bidi overrides and markup, decodes entities, and caps lengths', () => {
    const title = `Codex reset \u0007now\u202E &#x1F600; &lt;b&gt;bold&lt;/b&gt; ${'long '.repeat(100)}`;
    const desc = `<![CDATA[${'<p>x</p>'.repeat(2000)}]]>`;
    // XML 1.0 forbids raw control characters, so those come through JSON Feed; markup and entities through both.
    const rss = parsed(
      `<rss><channel><item><title>${title.replace('\u0007', '')}</title><description>${desc}</description><link>https://a.example.test/1</link></item></channel></rss>`,
    );
    const json = parsed(
      JSON.stringify({
        version: 'https://jsonfeed.org/version/1.1',
        items: [{ id: '1', title, summary: '<p>x</p>'.repeat(2000) }],
      }),
    );
    for (const item of [rss.items[0]!, json.items[0]!]) {
      expect(item.title.length).toBeLessThanOrEqual(300);
      expect(item.title.startsWith('Codex reset now 😀 bold long')).toBe(true);
      expect(item.title.endsWith('…')).toBe(true);
      expect(item.title).not.toMatch(/[\u0000-\u001f\u202e<>]/);
      expect(item.excerpt.length).toBeLessThanOrEqual(1000);
    }
  });

  it('never expands DTD entities: a feed that uses one is refused as invalid XML, as is a truncated feed', () => {
    const evil =
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><rss><channel><item><title>&b; codex reset</title></item></channel></rss>';
    expect(parseFeed(evil, AS_OF)).toMatchObject({ ok: false, detail: { code: 'invalid_xml' } });
    const truncated = '<rss><channel><item><title>codex reset</title></item><item><title>unterminated';
    expect(parseFeed(truncated, AS_OF)).toMatchObject({ ok: false, detail: { code: 'invalid_xml' } });
    expect(parseFeed('<?xml version="1.0"?><?pi <?also', AS_OF)).toMatchObject({
      ok: false,
      detail: { code: 'unknown_feed_format' },
    });
    // HTML named entities in text are read (feeds use them although XML does not define them).
    expect(
      parsed('<rss><channel><item><title>Codex&nbsp;reset&hellip;</title></item></channel></rss>').items[0]!.title,
    ).toBe('Codex reset…');
  });

  it(`reads at most ${MAX_FEED_ITEMS} items and counts the rest as rejected`, () => {
    const items = Array.from({ length: 500 }, (_, i) => `<entry><id>e${i}</id><title>t${i}</title></entry>`).join('');
    const r = parseFeed(`<feed xmlns="http://www.w3.org/2005/Atom"><title>f</title>${items}</feed>`, AS_OF);
    if (!r.ok) throw new Error(r.detail.code);
    expect(r.feed.items).toHaveLength(MAX_FEED_ITEMS);
    expect(r.rejected).toEqual({ over_item_cap: 300 });
  });

  it('rejects items dated in the future or before the tracked era, and non-http links, counting each reason', async () => {
    const item = (title: string, date: string, link = 'https://e.test/1') =>
      `<item><title>${title}</title><link>${link}</link><pubDate>${date}</pubDate></item>`;
    const body = `<rss><channel><title>codex</title>${[
      item('Codex reset ok', 'Sat, 21 Nov 2026 11:00:00 GMT'),
      item('Codex reset soon', 'Sat, 21 Nov 2026 12:05:00 GMT', 'https://e.test/2'),
      item('Codex reset far', 'Fri, 31 Dec 9999 00:00:00 GMT', 'https://e.test/3'),
      item('Codex reset old', 'Mon, 01 Jan 2001 00:00:00 GMT', 'https://e.test/4'),
      item('Codex reset js', 'Sat, 21 Nov 2026 11:00:00 GMT', 'javascript:alert(1)'),
      item('Codex reset creds', 'Sat, 21 Nov 2026 11:00:00 GMT', 'https://u:p@e.test/5'),
    ].join('')}</channel></rss>`;
    const r = await fetchSignalFeed(testFetcher(), await serve(body, 'application/rss+xml'), AS_OF);
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 4,
      detail: {
        code: 'ok_with_rejections',
        params: { rejected: 4, reasons: 'bad_url 2, future_date 1, before_era 1' },
      },
    });
    expect(r.signals!.map((s) => [s.title, s.url])).toEqual([
      ['Codex reset ok', 'https://e.test/1'],
      ['Codex reset soon', 'https://e.test/2'],
      ['Codex reset js', null],
      ['Codex reset creds', null],
    ]);
  });

  it('reads a date without a zone as UTC in RSS, Atom and JSON Feed, and a date in no feed format as no date', () => {
    const rss = parsed(`<rss version="2.0"><channel><title>codex</title>
      <item><title>a</title><link>https://f.test/1</link><pubDate>Sat, 21 Nov 2026 10:00:00</pubDate></item>
      <item><title>b</title><link>https://f.test/2</link><pubDate>2026/11/21 10:00</pubDate></item></channel></rss>`);
    expect(rss.items.map((i) => i.published_at)).toEqual(['2026-11-21T10:00:00Z', null]);
    const atom = parsed(
      `<feed xmlns="http://www.w3.org/2005/Atom"><title>codex</title><entry><id>1</id><title>a</title><updated>2026-11-21T09:00:00</updated></entry></feed>`,
    );
    expect(atom.items.map((i) => i.published_at)).toEqual(['2026-11-21T09:00:00Z']);
    const json = parsed(
      JSON.stringify({
        version: 'https://jsonfeed.org/version/1.1',
        title: 'codex',
        items: [{ id: '1', title: 'a', date_published: '2026-11-21 08:00' }],
      }),
    );
    expect(json.items.map((i) => i.published_at)).toEqual(['2026-11-21T08:00:00Z']);
  });

  it('refuses an over-deep document and one over the feed cap before reading it', () => {
    expect(parseFeed(`<rss><channel>${'<a>'.repeat(100)}`, AS_OF)).toMatchObject({
      ok: false,
      detail: { code: 'too_deeply_nested', params: { max: 32 } },
    });
    expect(parseFeed(`<rss>${' '.repeat(1024 * 1024)}</rss>`, AS_OF)).toMatchObject({
      ok: false,
      detail: { code: 'body_too_large', params: { limit_kib: 1024 } },
    });
  });

  it('stops a parse that runs past its time budget between chunks', () => {
    let t = 0;
    // Every look at the clock finds 600 ms more gone.
    const slowClock = vi.spyOn(performance, 'now').mockImplementation(() => (t += 600));
    const body = `<rss><channel>${'<item><title>x</title></item>'.repeat(10_000)}</channel></rss>`;
    try {
      expect(parseFeed(body, AS_OF)).toMatchObject({
        ok: false,
        detail: { code: 'parse_time_exceeded', params: { ms: 1000 } },
      });
    } finally {
      slowClock.mockRestore();
    }
  });

  it('parses or refuses a 2 MiB attribute-like run (the old quadratic case) at once', () => {
    const head = '<rss version="2.0"><channel><item><title>codex reset</title><link';
    for (const unit of [' a="b', ' a=a', ' a="" ']) {
      const body = head + unit.repeat(Math.floor((2 * 1024 * 1024 - head.length) / unit.length));
      // Over the 1 MiB feed cap: refused by size. The parser itself must also finish: feed it the half that fits.
      expect(parseFeed(body, AS_OF)).toMatchObject({ ok: false, detail: { code: 'body_too_large' } });
      const r = parseFeed(body.slice(0, 1024 * 1024 - 16), AS_OF);
      expect(r.ok).toBe(false);
    }
  });
});

describe('isResetNews (the keyword rule)', () => {
  const item = (title: string, excerpt = '') => ({ title, excerpt });
  it('needs a reset word and Codex context', () => {
    expect(isResetNews(item('Codex limits reset for everyone'))).toBe(true);
    expect(isResetNews(item('OpenAI resets usage limits', 'for all Codex users'))).toBe(true);
    expect(isResetNews(item('They RESET the limits'), 'newest submissions : codex')).toBe(true);
    expect(isResetNews(item('Did my limits just reset?'))).toBe(false);
    expect(isResetNews(item('Codex usage limits are too low'))).toBe(false);
    expect(isResetNews(item('Codex presets and resetting? no: preset'))).toBe(true);
    expect(isResetNews(item('Codex presets are great'))).toBe(false);
    expect(isResetNews(item('codexes reset'))).toBe(false);
  });
});
