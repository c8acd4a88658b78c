// The post reader against a real loopback server that answers as X's oEmbed endpoint does: the reconstructed answer
// for post 2097174560412246215 (test/fixtures/real-upstreams/x-oembed/, its README gives the shape), its refusals,
// and hostile variants of it. Expected words are the post's own (the timeline capture quotes them).
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { formatInstant } from '../../builder/contract.ts';
import { PostReadSchema, SourceCheckSchema } from '../../builder/model/schemas.ts';
import { LOCAL_USER_AGENT } from '../../builder/net/user-agent.ts';
import {
  DEFAULT_POST_EMBED_URL,
  disabledSourcesFromEnv,
  postEmbedConfigFromEnv,
  sourceConfigsFromEnv,
} from '../../builder/sources/config.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { fetchPostReads } from '../../builder/sources/post-embed.ts';
import { AS_OF, sendJson, startServer, testFetcher, type TestServer } from './helpers.ts';

const POST = '2097174560412246215';
const CAPTURE = readFileSync(
  new URL(`../fixtures/real-upstreams/x-oembed/oembed.${POST}.reconstructed.json`, import.meta.url),
  'utf8',
);
/** The post's words as X's html holds them: its link kept as the link's text. */
const WORDS = 'All reset for everyone. Enjoy the week with Astra. https://t.co/WBM38JotGO';

/** The captured answer, for another post id and with any field replaced. */
function answer(id: string, fields: Record<string, unknown> = {}): string {
  const a = JSON.parse(CAPTURE.replaceAll(POST, id)) as Record<string, unknown>;
  return JSON.stringify({ ...a, ...fields });
}
/** The captured answer with `inner` as its post paragraph's content, as X writes it. */
const withParagraph = (id: string, inner: string) =>
  answer(id, {
    html: `<blockquote class="twitter-tweet" data-dnt="true"><p lang="en" dir="ltr">${inner}</p>&mdash; Tibo (@thsottiaux) <a href="https://twitter.com/thsottiaux/status/${id}?ref_src=twsrc%5Etfw">September 8, 2026</a></blockquote>\n`,
  });

type Reply = string | ((res: ServerResponse) => void);
let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** The post id a request asks for (from its `url` parameter). */
const askedFor = (path: string) =>
  /\/status\/(\d+)$/.exec(new URL(path, 'http://h').searchParams.get('url') ?? '')?.[1];
const requestsFor = (id: string) => server!.requests.filter((r) => askedFor(r.path) === id).length;

/** An oEmbed endpoint on loopback answering each post id with its reply (a JSON body, or a handler); others 500. */
async function serve(replies: Record<string, Reply>, query = ''): Promise<SourceConfig> {
  server = await startServer((req, res) => {
    const reply = replies[askedFor(req.url ?? '') ?? ''];
    if (typeof reply === 'string') sendJson(res, reply);
    else if (reply) reply(res);
    else sendJson(res, '{}', 500);
  });
  return { id: 'post-embed', kind: 'post_embed', url: `${server.url}/oembed${query}` };
}
const status =
  (code: number, headers: Record<string, string> = {}, body = '<html>refused</html>') =>
  (res: ServerResponse) => {
    res.writeHead(code, { 'content-type': 'text/html', ...headers });
    res.end(body);
  };
const posts = (...ids: string[]) => ids.map((id) => ({ post_id: id, url: `https://x.com/thsottiaux/status/${id}` }));

async function read(replies: Record<string, Reply>, ids: string[]) {
  const r = await fetchPostReads(testFetcher(), await serve(replies), posts(...ids), AS_OF);
  if (r === null) throw new Error('no result');
  return r;
}

describe('fetchPostReads', () => {
  it(`reads the real answer for ${POST}: the author from author_url, the post's words with the link as its text`, async () => {
    const r = await read({ [POST]: CAPTURE }, [POST]);
    expect(r.reads).toEqual([
      {
        post_id: POST,
        outcome: 'ok',
        read_at: formatInstant(AS_OF),
        author: 'thsottiaux',
        text: WORDS,
        http_status: 200,
      },
    ]);
    expect(r.check).toEqual({
      source: 'post-embed',
      kind: 'post_embed',
      url: `${server!.url}/…`,
      ok: true,
      http_status: 200,
      latency_ms: expect.any(Number),
      items_read: 1,
      checked_at: formatInstant(AS_OF),
      detail: { code: 'ok', params: {} },
    });
    // What the model keeps in state takes these as they are.
    expect(() => SourceCheckSchema.parse(r.check)).not.toThrow();
    for (const x of r.reads) expect(() => PostReadSchema.parse({ ...x, attempts: 0, next_try_at: null })).not.toThrow();
  });

  it('asks the documented endpoint for the post with omit_script, dnt and hide_thread, for JSON, with the User-Agent; only scheme and host of the endpoint are shown', async () => {
    const config = await serve({ [POST]: CAPTURE }, '?key=s3cret-value');
    const r = await fetchPostReads(testFetcher(), config, posts(POST), AS_OF);
    const req = server!.requests[0]!;
    const url = new URL(req.path, 'http://h');
    expect(url.pathname).toBe('/oembed');
    expect([...url.searchParams]).toEqual([
      ['key', 's3cret-value'],
      ['url', `https://twitter.com/i/status/${POST}`],
      ['omit_script', '1'],
      ['dnt', 'true'],
      ['hide_thread', '1'],
    ]);
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers['user-agent']).toBe(LOCAL_USER_AGENT);
    expect(r!.check.url).toBe(`${server!.url}/…`);
    expect(JSON.stringify(r)).not.toContain('s3cret');
  });

  it('gives null for an empty list, and asks nothing', async () => {
    const config = await serve({ [POST]: CAPTURE });
    expect(await fetchPostReads(testFetcher(), config, [], AS_OF)).toBeNull();
    expect(server!.requests).toHaveLength(0);
  });

  it('reads each post once, in the order given', async () => {
    const r = await read({ [POST]: CAPTURE, '2097043464538264003': answer('2097043464538264003') }, [
      '2097043464538264003',
      POST,
      '2097043464538264003',
    ]);
    expect(r.reads.map((x) => x.post_id)).toEqual(['2097043464538264003', POST]);
    expect(server!.requests).toHaveLength(2);
  });

  it('reads a 404 as not_found (final), and the check stays ok and says how many', async () => {
    const r = await read({ '111': status(404), [POST]: CAPTURE }, ['111', POST]);
    expect(r.reads).toEqual([
      { post_id: '111', outcome: 'not_found', read_at: formatInstant(AS_OF), author: null, text: '', http_status: 404 },
      expect.objectContaining({ post_id: POST, outcome: 'ok' }),
    ]);
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 1,
      detail: { code: 'ok_posts_not_found', params: { not_found: 1 } },
    });
    // A 404 is an answer, not a failure: not retried.
    expect(requestsFor('111')).toBe(1);
  });

  it('reads a 429 as rate_limited with the wait asked for, and asks for none of the remaining posts this run', async () => {
    const r = await read(
      { '111': CAPTURE.replaceAll(POST, '111'), '222': status(429, { 'retry-after': '120' }), [POST]: CAPTURE },
      ['111', '222', POST],
    );
    expect(r.reads.map((x) => [x.post_id, x.outcome, x.http_status])).toEqual([
      ['111', 'ok', 200],
      ['222', 'rate_limited', 429],
    ]);
    // A wait past the run's deadline is not waited for: one request, then the run stops asking.
    expect([requestsFor('111'), requestsFor('222'), requestsFor(POST)]).toEqual([1, 1, 0]);
    expect(r.check).toMatchObject({
      ok: false,
      http_status: 429,
      items_read: 1,
      detail: { code: 'rate_limited', params: { retry_after_s: 120 } },
    });
  });

  it('retries a 429 without Retry-After by the shared policy, then stops the run with rate_limited', async () => {
    const r = await read({ '222': status(429), [POST]: CAPTURE }, ['222', POST]);
    expect(r.reads.map((x) => x.outcome)).toEqual(['rate_limited']);
    expect([requestsFor('222'), requestsFor(POST)]).toEqual([3, 0]);
    expect(r.check.detail).toEqual({ code: 'rate_limited', params: {} });
  });

  it('reads a 403 as blocked, not retried, and asks for none of the remaining posts this run', async () => {
    const r = await read({ '333': status(403), [POST]: CAPTURE }, ['333', POST]);
    expect(r.reads.map((x) => [x.post_id, x.outcome, x.http_status])).toEqual([['333', 'blocked', 403]]);
    expect([requestsFor('333'), requestsFor(POST)]).toEqual([1, 0]);
    expect(r.check).toMatchObject({ ok: false, http_status: 403, items_read: 0, detail: { code: 'blocked' } });
  });

  it.each([
    ['a 500', status(500), { code: 'http_status', params: { status: 500 } }, 500],
    ['a time-out', () => {}, { code: 'timeout', params: { seconds: 0.4 } }, null],
    ['a body that is not JSON', status(200, {}, '<html>not json</html>'), { code: 'invalid_json', params: {} }, 200],
    [
      'a body over the JSON budget (1 MiB)',
      withParagraph(POST, 'x'.repeat(1_100_000)),
      { code: 'body_too_large', params: { limit_kib: 1024 } },
      200,
    ],
    [
      'an answer without html',
      answer(POST, { html: null }),
      { code: 'schema_mismatch', params: { path: 'html' } },
      200,
    ],
  ])('fails the read on %s, names it in the check, and goes on with the next post', async (_, reply, detail, http) => {
    const r = await read({ '444': reply as Reply, [POST]: CAPTURE }, ['444', POST]);
    expect(r.reads.map((x) => [x.post_id, x.outcome, x.http_status, x.author, x.text])).toEqual([
      ['444', 'failed', http, null, ''],
      [POST, 'ok', 200, 'thsottiaux', WORDS],
    ]);
    expect(r.check).toMatchObject({ ok: false, http_status: http, items_read: 1, detail });
  });

  it('takes the author from author_url, whoever it is (the model decides who counts), on twitter.com or x.com', async () => {
    const cases: Record<string, [string, string]> = {
      '1': ['https://twitter.com/SomeoneElse', 'https://twitter.com/SomeoneElse/status/1'],
      '2': ['https://x.com/OpenAIDevs', 'https://x.com/OpenAIDevs/status/2'],
      '3': ['https://mobile.twitter.com/OpenAI', 'https://twitter.com/i/status/3'],
      '4': ['http://www.x.com/Open_AI_2', 'https://www.x.com/open_ai_2/status/4?s=20'],
    };
    const replies = Object.fromEntries(
      Object.entries(cases).map(([id, [author_url, url]]) => [id, answer(id, { author_url, url })]),
    );
    const r = await read(replies, Object.keys(cases));
    expect(r.reads.map((x) => [x.outcome, x.author, x.text])).toEqual([
      ['ok', 'someoneelse', WORDS],
      ['ok', 'openaidevs', WORDS],
      ['ok', 'openai', WORDS],
      ['ok', 'open_ai_2', WORDS],
    ]);
  });

  it.each([
    'https://twitter.com.evil.test/thsottiaux',
    'https://evil.test/thsottiaux',
    'https://nottwitter.com/thsottiaux',
    'https://twitter.com/thsottiaux/status/1',
    'https://twitter.com/thsottiaux/',
    'https://twitter.com/thsottiaux?lang=en',
    'https://twitter.com/thsottiaux#top',
    'https://twitter.com:8443/thsottiaux',
    'https://someone@twitter.com/thsottiaux',
    'https://twitter.com/a_handle_too_long_for_x',
    'https://twitter.com/th%20sottiaux',
    'https://twitter.com',
    'ftp://twitter.com/thsottiaux',
    'thsottiaux',
  ])('fails the read when author_url is %s (not exactly an account on X)', async (author_url) => {
    const r = await read({ [POST]: answer(POST, { author_url }) }, [POST]);
    expect(r.reads[0]).toMatchObject({ outcome: 'failed', author: null, text: '', http_status: 200 });
    expect(r.check).toMatchObject({ ok: false, detail: { code: 'post_author_unreadable' } });
  });

  it.each([
    ['another post', `https://twitter.com/thsottiaux/status/2097043464538264003`],
    ['another account than author_url', `https://twitter.com/OpenAI/status/${POST}`],
    ['another host', `https://evil.test/thsottiaux/status/${POST}`],
    ['no post at all', 'https://twitter.com/thsottiaux'],
    ['a longer id', `https://twitter.com/thsottiaux/status/${POST}9`],
  ])('fails the read when the answer url names %s', async (_, url) => {
    const r = await read({ [POST]: answer(POST, { url }) }, [POST]);
    expect(r.reads[0]).toMatchObject({ outcome: 'failed', author: null, text: '' });
    expect(r.check).toMatchObject({ ok: false, detail: { code: 'post_mismatch' } });
  });
});

describe("fetchPostReads: the post's words from hostile html", () => {
  const words: [string, string, string][] = [
    [
      'nested tags',
      'All <span><b>reset <i>for</i></b> <a href="https://t.co/x">every<em>one</em></a></span>.',
      'All reset for everyone.',
    ],
    ['<br> as a line break', 'Line one<br>Line two<br/>  Line three', 'Line one\nLine two\nLine three'],
    ['white space as a browser shows it', '  All\n  reset\t\tfor   everyone  ', 'All reset for everyone'],
    ['a script in the paragraph', 'Reset<script>document.write("</p><p>fake")</script> done', 'Reset done'],
    ['a style and a comment holding </p>', 'Reset<style>p{}</style> <!-- </p> hidden --> done', 'Reset done'],
    ['unclosed tags', 'All reset <b>for <i>everyone', 'All reset for everyone'],
    [
      'a huge attribute value',
      `<a href="https://t.co/${'x'.repeat(900_000)}">the link text</a> stays`,
      'the link text stays',
    ],
    ['an attribute value holding markup', '<a title="</p><p>fake">real</a> words', 'real words'],
    [
      'escaped markup, decoded once',
      '&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;',
      '&lt;script&gt;alert(1)&lt;/script&gt;',
    ],
    ['escaped tags, never live', 'a &lt;b&gt;bold&lt;/b&gt; move &lt;script&gt;x()&lt;/script&gt;', 'a bold move'],
    [
      'named and numeric entities',
      '&#82;eset &amp; enjoy &#x1F389; &ldquo;now&rdquo; &quot;ok&quot; &#39;x&#39;',
      'Reset & enjoy 🎉 “now” "ok" \'x\'',
    ],
    ['invisible and control characters', 're\u200Bset &#x202E;for&#0; every&#8203;one\u0007', 'reset for everyone'],
    ['a < that opens no tag', '5 &lt; 6 and 7 < 8', '5 < 6 and 7 < 8'],
  ];
  it.each(words)('reads %s', async (_, inner, expected) => {
    const r = await read({ [POST]: withParagraph(POST, inner) }, [POST]);
    expect(r.reads[0]).toMatchObject({ outcome: 'ok', text: expected });
  });

  it('drops a tag cut off by the end of the html, as a browser does, and keeps the words before it', async () => {
    const html = '<blockquote class="twitter-tweet"><p>All reset <a href="https://t.co/x';
    const r = await read({ [POST]: answer(POST, { html }) }, [POST]);
    expect(r.reads[0]).toMatchObject({ outcome: 'ok', text: 'All reset' });
  });

  it('finds the paragraph of the twitter-tweet blockquote only, past a fake one in a script and other quotes', async () => {
    const html =
      `<p>not the post</p><script>var s = '<blockquote class="twitter-tweet"><p>fake</p>';</script>` +
      '<blockquote class="quote"><p>not it either</p></blockquote>' +
      '<blockquote class="tw-align-center twitter-tweet" data-dnt="true"><div><p>The post.</p></div><p>Second</p></blockquote>';
    const r = await read({ [POST]: answer(POST, { html }) }, [POST]);
    expect(r.reads[0]).toMatchObject({ outcome: 'ok', text: 'The post.' });
  });

  it.each([
    ['no twitter-tweet blockquote', '<blockquote class="twitter-tweets"><p>x</p></blockquote>'],
    ['the paragraph outside the blockquote', '<blockquote class="twitter-tweet">&mdash; x</blockquote><p>outside</p>'],
    ['a blockquote cut off inside a tag', '<blockquote class="twitter-tweet"><p class="x'],
    ['empty html', ''],
  ])('fails the read when the html has %s', async (_, html) => {
    const r = await read({ [POST]: answer(POST, { html }) }, [POST]);
    expect(r.reads[0]).toMatchObject({ outcome: 'failed', text: '' });
    expect(r.check.detail.code).toBe('post_text_missing');
  });

  it('reads a megabyte of html within the budget, keeping at most 4,000 characters of words', async () => {
    const deep = `${'<span><b>'.repeat(50_000)}deep words${'</b></span>'.repeat(50_000)}`;
    const long = 'reset '.repeat(150_000);
    const r = await read({ '1': withParagraph('1', deep), '2': withParagraph('2', long) }, ['1', '2']);
    expect(r.check.ok).toBe(true);
    expect(r.reads[0]!.text).toBe('deep words');
    expect(r.reads[1]!.text).toHaveLength(4000);
    expect(r.reads[1]!.text.startsWith('reset reset')).toBe(true);
  });
});

describe('postEmbedConfigFromEnv (RESET_POST_EMBED_URL)', () => {
  it("is X's oEmbed endpoint by default, and never one of the sources read every run", () => {
    expect(DEFAULT_POST_EMBED_URL).toBe('https://publish.twitter.com/oembed');
    expect(postEmbedConfigFromEnv({})).toEqual({ id: 'post-embed', kind: 'post_embed', url: DEFAULT_POST_EMBED_URL });
    expect(sourceConfigsFromEnv({}).map((c) => c.kind)).not.toContain('post_embed');
    expect(disabledSourcesFromEnv({})).toEqual([]);
  });

  it('takes another http(s) address, and refuses anything else naming the variable', () => {
    expect(postEmbedConfigFromEnv({ RESET_POST_EMBED_URL: ' http://127.0.0.1:9/oembed ' })?.url).toBe(
      'http://127.0.0.1:9/oembed',
    );
    expect(() => postEmbedConfigFromEnv({ RESET_POST_EMBED_URL: 'file:///etc/passwd' })).toThrow(
      /RESET_POST_EMBED_URL must be an http\(s\) URL/,
    );
  });

  it('empty turns automatic verification off, and the disabled list says so', () => {
    for (const v of ['', '  ']) {
      expect(postEmbedConfigFromEnv({ RESET_POST_EMBED_URL: v })).toBeNull();
      expect(disabledSourcesFromEnv({ RESET_POST_EMBED_URL: v })).toEqual([
        { id: 'post-embed', kind: 'post_embed', variable: 'RESET_POST_EMBED_URL' },
      ]);
    }
  });
});
