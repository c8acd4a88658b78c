// Source 5: the service's own reads of official X posts, through X's documented keyless oEmbed endpoint
// (`GET https://publish.twitter.com/oembed?url=<post>`). The model plans which posts to read (bounded, remembered in
// state) and decides what a read proves; this adapter reads them, one after another, and says what X answered:
// whether the post exists, its author (from `author_url`) and its words (from `html`, post-html.ts). Hostile like
// every source: parsed under JSON_BUDGET, only documented fields read, text cleaned and capped.
import { z } from 'zod';
import { formatInstant } from '../contract.ts';
import { SourceError } from '../errors.ts';
import type { PostReadResult } from '../model/inputs.ts';
import type { Detail, PostRead } from '../model/schemas.ts';
import { parseJsonWithin } from './budget.ts';
import { computeCheck, type Fetcher, type SourceConfig } from './fetcher.ts';
import { postWords } from './post-html.ts';

type Read = PostReadResult['reads'][number];

/** The documented fields of an oEmbed answer for a post; the others (width, cache_age, ...) are not read. */
const PostEmbedSchema = z.object({
  url: z.string(),
  author_name: z.string().optional(),
  author_url: z.string(),
  html: z.string(),
  type: z.string().optional(),
  provider_name: z.string().optional(),
  version: z.string().optional(),
});

const POST_ID = /^\d{1,20}$/;
const X_HOST = /^(?:www\.|mobile\.)?(?:twitter|x)\.com$/;
/** An account's path: `/<handle>`. */
const ACCOUNT_PATH = /^\/([A-Za-z0-9_]{1,15})$/;
/** A post's path: `/<handle>/status/<id>`, or `/i/status/<id>` and `/i/web/status/<id>`, which name no account. */
const POST_PATH = /^\/(?:i\/web|i|([A-Za-z0-9_]{1,15}))\/status\/(\d{1,20})\/?$/;

/** The path of an address on X (twitter.com or x.com, optionally www. or mobile.); null for any other address. */
function xPath(raw: string, exact: boolean): string | null {
  const u = URL.parse(raw);
  if (u === null || (u.protocol !== 'https:' && u.protocol !== 'http:') || !X_HOST.test(u.hostname)) return null;
  if (u.port !== '' || u.username !== '' || u.password !== '') return null;
  return exact && (u.search !== '' || u.hash !== '') ? null : u.pathname;
}

/**
 * Pure: an answer for post `postId` → its author (the handle of `author_url`, lower-cased) and words, or why it
 * cannot be used: an `author_url` that is not exactly an account's address on X, a `url` that names another post (or
 * another account than the author), an `html` without the post's paragraph.
 */
function judgeEmbed(answer: z.infer<typeof PostEmbedSchema>, postId: string) {
  const refused = (code: string) => ({ ok: false, detail: { code, params: {} } }) as const;
  const author = ACCOUNT_PATH.exec(xPath(answer.author_url, true) ?? '')?.[1]?.toLowerCase();
  if (author === undefined) return refused('post_author_unreadable');
  const named = POST_PATH.exec(xPath(answer.url, false) ?? '');
  if (named?.[2] !== postId || (named[1]?.toLowerCase() ?? author) !== author) return refused('post_mismatch');
  const text = postWords(answer.html);
  return text === null ? refused('post_text_missing') : ({ ok: true, author, text } as const);
}

/** One post read; 404 is X's word that the post does not exist or is not public. */
async function readPost(fetcher: Fetcher, config: SourceConfig, postId: string, asOf: Date) {
  const url = new URL(config.url);
  url.searchParams.set('url', `https://twitter.com/i/status/${postId}`);
  url.searchParams.set('omit_script', '1'); // no <script> in `html`
  url.searchParams.set('dnt', 'true'); // X is asked not to use the read for personalisation
  url.searchParams.set('hide_thread', '1'); // not the post it replies to
  const r = await fetcher.get(url.href, { accept: 'application/json' });
  const base = { post_id: postId, read_at: formatInstant(asOf), http_status: r.status, author: null, text: '' };
  const reply = (outcome: PostRead['outcome'], detail: Detail, words?: { author: string; text: string }) => ({
    read: { ...base, outcome, ...words } satisfies Read,
    detail,
    latencyMs: r.latencyMs,
  });
  if (r.ok) {
    const got = parseJsonWithin(r.body, PostEmbedSchema, (answer) => judgeEmbed(answer, postId));
    return got.ok
      ? reply('ok', { code: 'ok', params: {} }, { author: got.author, text: got.text })
      : reply('failed', got.detail);
  }
  if (r.status === 429) {
    const wait = r.retryAfterS === undefined ? {} : { retry_after_s: r.retryAfterS };
    return reply('rate_limited', { code: 'rate_limited', params: wait });
  }
  return reply(r.status === 404 ? 'not_found' : r.status === 403 ? 'blocked' : 'failed', r.detail);
}

/**
 * Reads `posts` in order, one request at a time, each id once; null for none (no request, no check). After a 403 or a
 * 429 the rest are not asked for in this run. The check is ok when X answered every read made (`ok` or `not_found`),
 * else it carries the first refusal's detail. A post's cited `url` is not used: X is asked for
 * `https://twitter.com/i/status/<id>`, which names no account, so the author comes from X, not from the citation.
 */
export async function fetchPostReads(
  fetcher: Fetcher,
  config: SourceConfig,
  posts: readonly { post_id: string; url: string }[],
  asOf: Date,
): Promise<PostReadResult | null> {
  if (posts.length === 0) return null;
  const reads: Read[] = [];
  let first: { detail: Detail; status: number | null } | null = null;
  let latencyMs = 0;
  for (const postId of new Set(posts.map((p) => p.post_id))) {
    // The ids come from the model's plan, which reads them from validated records: another shape is a bug.
    if (!POST_ID.test(postId)) throw new SourceError('sources/post-embed', `not a post id: ${JSON.stringify(postId)}`);
    const { read, detail, latencyMs: ms } = await readPost(fetcher, config, postId, asOf);
    reads.push(read);
    latencyMs += ms;
    if (read.outcome !== 'ok' && read.outcome !== 'not_found') first ??= { detail, status: read.http_status };
    if (read.outcome === 'blocked' || read.outcome === 'rate_limited') break;
  }
  const notFound = reads.filter((r) => r.outcome === 'not_found').length;
  const fields = {
    ok: first === null,
    http_status: first === null ? reads.at(-1)!.http_status : first.status,
    latency_ms: latencyMs,
    items_read: reads.filter((r) => r.outcome === 'ok').length,
    detail:
      first?.detail ??
      (notFound > 0 ? { code: 'ok_posts_not_found', params: { not_found: notFound } } : { code: 'ok', params: {} }),
  };
  return { check: computeCheck(config, asOf, fields), reads };
}
