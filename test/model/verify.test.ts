// The service's own verification (model/verify.ts): each rule of "verified" turns a verified reset into an unverified
// one when it fails, with the reason kept; which posts a run reads, and how failed reads wait. The post is the real
// 2026-09-08 one ("All reset for everyone. Enjoy the week with Astra."), as X's oEmbed answer words it
// (test/fixtures/real-upstreams/x-oembed/).
import { describe, expect, it } from 'vitest';
import {
  applyPostReads,
  comparable,
  MAX_POST_READS_PER_RUN,
  planPostReads,
  quoteAgrees,
  READ_RETRY_BASE_MS,
  READ_RETRY_MAX_MS,
  verifyEvents,
} from '../../builder/model/verify.ts';
import { EventSchema, type Event, type PostRead, type RecordedBy } from '../../builder/model/schemas.ts';
import type { PostReadResult } from '../../builder/model/inputs.ts';

const POST = '2097174560412246215';
const POST_AT = '2026-09-08T04:05:53Z';
const X_TEXT = 'All reset for everyone. Enjoy the week with Astra. https://t.co/WBM38JotGO';
const LEDGER_QUOTE = 'All reset for everyone. Enjoy the week with Astra.';
const AS_OF = new Date('2026-09-08T12:00:00Z');

const vote = (origin: Event['origin'], reads_as: RecordedBy['reads_as'] = 'global_reset'): RecordedBy => ({
  origin,
  record_id: `${origin}-1`,
  label: 'x',
  reads_as,
});

function reset(over: Partial<Event> = {}, id = POST, at = POST_AT): Event {
  return {
    ...EventSchema.parse({
      id: 'ledger-2026-09-08-0156',
      type: 'global_reset',
      status: 'archived',
      reason: 'launch',
      origin: 'ledger',
      time_precision: 'second',
      time_basis: 'announcement',
      announced_at: at,
      observed_at: null,
      effective_at: null,
      evidence_text: LEDGER_QUOTE,
      sources: [{ platform: 'X', url: `https://x.com/thsottiaux/status/${id}` }],
    }),
    agreement: 'agreed',
    recorded_by: [vote('ledger'), vote('service_resets')],
    ...over,
  };
}

const read = (over: Partial<PostRead> = {}): PostRead => ({
  post_id: POST,
  outcome: 'ok',
  read_at: '2026-09-08T11:45:00Z',
  attempts: 0,
  next_try_at: null,
  author: 'thsottiaux',
  text: X_TEXT,
  http_status: 200,
  ...over,
});

function verify(e: Event, reads: PostRead[] = [read()], enabled = true) {
  return verifyEvents([e], {
    reads,
    official: new Set(['thsottiaux']),
    records: [e],
    labels: [],
    enabled,
    asOf: AS_OF,
  })[0]!;
}

describe('verified by the service', () => {
  it('verifies a reset two sources agree on once its official post is read and matches, keeping its id', () => {
    const v = verify(reset());
    expect(v.status).toBe('verified');
    expect(v.id).toBe('ledger-2026-09-08-0156');
    expect(v.verification).toEqual({
      state: 'verified',
      reason: null,
      post_id: POST,
      author: 'thsottiaux',
      read_at: '2026-09-08T11:45:00Z',
      sources: ['ledger', 'service_resets'],
      quoted_by: ['ledger'],
    });
  });

  it.each([
    [
      'one source alone',
      reset({ agreement: 'single_source', recorded_by: [vote('ledger')] }),
      [read()],
      'single_source',
    ],
    ['a disputed post', reset({ agreement: 'disputed' }), [read()], 'disputed'],
    ['a disagreement a review settled', reset({ agreement: 'reviewed' }), [read()], 'sources_disagreed'],
    ['a post not read yet', reset(), [], 'not_read'],
    [
      'a post X says does not exist',
      reset(),
      [read({ outcome: 'not_found', author: null, text: '', http_status: 404 })],
      'post_not_found',
    ],
    [
      'a post X refused to give (429)',
      reset(),
      [read({ outcome: 'rate_limited', author: null, text: '', http_status: 429 })],
      'post_unreadable',
    ],
    [
      'a post that timed out',
      reset(),
      [read({ outcome: 'failed', author: null, text: '', http_status: null })],
      'post_unreadable',
    ],
    ['another author', reset(), [read({ author: 'someone_else' })], 'author_not_official'],
    ['other words', reset(), [read({ text: 'Soon, but not today' })], 'text_differs'],
  ] as const)('does not verify %s, and says why', (_, e, reads, reason) => {
    const v = verify(e, [...reads]);
    expect(v.status).toBe('archived');
    expect(v.verification).toMatchObject({ state: 'not_verified', reason });
  });

  it('does not verify a post made on another UTC date than the reset', () => {
    // The reset is dated the next day (a reset that took effect after midnight), the post the day before.
    const e = reset({ effective_at: '2026-09-09T01:00:00Z', time_basis: 'effective' });
    const v = verifyEvents([e], {
      reads: [read()],
      official: new Set(['thsottiaux']),
      records: [e],
      labels: [],
      enabled: true,
      asOf: new Date('2026-09-09T12:00:00Z'),
    })[0]!;
    expect(v.verification).toMatchObject({ state: 'not_verified', reason: 'date_differs' });
  });

  it('says automatic verification is off when no post reader is configured', () => {
    expect(verify(reset(), [], false).verification?.reason).toBe('verification_off');
  });

  it('never uses a read from after the build', () => {
    expect(verify(reset(), [read({ read_at: '2026-09-08T12:00:01Z' })]).verification?.reason).toBe('not_read');
  });

  it("leaves a maintainer's verified record as it is", () => {
    const hand = { ...reset(), status: 'verified' as const };
    expect(verify(hand, [])).toEqual(hand);
  });

  it('compares words with links, markup, whitespace and case aside, and accepts a quote cut short', () => {
    expect(comparable('All  reset\nfor <b>everyone</b>. https://t.co/x')).toBe('all reset for everyone .');
    expect(quoteAgrees(X_TEXT, 'ALL RESET FOR EVERYONE.   Enjoy the week…')).toBe(true);
    expect(quoteAgrees(X_TEXT, 'All reset for nobody. Enjoy the week with Astra.')).toBe(false);
    expect(quoteAgrees(X_TEXT, 'All')).toBe(false);
  });
});

describe('reading posts', () => {
  const day = (d: string, n: number) =>
    reset(
      { id: `ledger-${d}` },
      String((BigInt(Date.parse(`${d}T10:00:00Z`) - 1288834974657) << 22n) | BigInt(n)),
      `${d}T10:00:00Z`,
    );

  it("plans today's candidates first, then the newest history, at most a few per run", () => {
    const events = [
      day('2026-09-01', 1),
      day('2026-09-05', 2),
      day('2026-09-08', 3),
      ...Array.from({ length: 10 }, (_, i) => day(`2026-08-${String(10 + i)}`, i)),
    ];
    const plan = planPostReads(events, [], AS_OF);
    expect(plan).toHaveLength(MAX_POST_READS_PER_RUN);
    expect(plan[0]!.url).toContain('/status/');
    const dates = plan.map((p) =>
      new Date(Number((BigInt(p.post_id) >> 22n) + 1288834974657n)).toISOString().slice(0, 10),
    );
    expect(dates.slice(0, 3)).toEqual(['2026-09-08', '2026-09-05', '2026-09-01']);
  });

  it('reads a post once for good, and a failed one again only after its back-off', () => {
    const e = reset();
    expect(planPostReads([e], [read()], AS_OF)).toEqual([]);
    expect(planPostReads([e], [read({ outcome: 'not_found' })], AS_OF)).toEqual([]);
    const waiting = read({ outcome: 'rate_limited', attempts: 1, next_try_at: '2026-09-08T12:15:00Z' });
    expect(planPostReads([e], [waiting], AS_OF)).toEqual([]);
    expect(planPostReads([e], [waiting], new Date('2026-09-08T12:15:00Z'))).toHaveLength(1);
    // Only resets that two sources agree on are worth a read.
    expect(planPostReads([reset({ agreement: 'single_source' })], [], AS_OF)).toEqual([]);
  });

  it('waits longer after each failed read, up to a day, and at least what Retry-After asked', () => {
    const failed = (retry?: number): PostReadResult => ({
      check: {
        source: 'post-embed',
        kind: 'post_embed',
        url: 'https://publish.twitter.com/',
        ok: false,
        http_status: 429,
        latency_ms: 1,
        items_read: 0,
        checked_at: AS_OF.toISOString(),
        detail: { code: 'rate_limited', params: retry === undefined ? {} : { retry_after_s: retry } },
      },
      reads: [
        {
          post_id: POST,
          outcome: 'rate_limited',
          read_at: AS_OF.toISOString(),
          author: null,
          text: '',
          http_status: 429,
        },
      ],
    });
    let reads: PostRead[] = [];
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      reads = applyPostReads(reads, failed(), AS_OF);
      waits.push(Date.parse(reads[0]!.next_try_at!) - AS_OF.getTime());
    }
    expect(waits.slice(0, 3)).toEqual([READ_RETRY_BASE_MS, 2 * READ_RETRY_BASE_MS, 4 * READ_RETRY_BASE_MS]);
    expect(Math.max(...waits)).toBe(READ_RETRY_MAX_MS);
    expect(Date.parse(applyPostReads([], failed(3600), AS_OF)[0]!.next_try_at!) - AS_OF.getTime()).toBe(3_600_000);
    // A final answer ends the waiting, and a later failure does not undo it.
    const done = applyPostReads(
      reads,
      {
        ...failed(),
        reads: [{ ...failed().reads[0]!, outcome: 'ok', author: 'thsottiaux', text: X_TEXT, http_status: 200 }],
      },
      AS_OF,
    );
    expect(done[0]).toMatchObject({ outcome: 'ok', attempts: 0, next_try_at: null });
    expect(applyPostReads(done, failed(), AS_OF)[0]!.outcome).toBe('ok');
  });
});
