// The decisions about an answer, without a server: the fetcher's status and error classification, the shared retry
// policy's delays and Retry-After.
import { describe, expect, it } from 'vitest';
import {
  BACKOFF_MAX_MS,
  MIN_ATTEMPT_MS,
  parseRetryAfterMs,
  retryDecision,
  type Retryable,
  withRetries,
} from '../../builder/net/http.ts';
import { classifyNetworkError, classifyStatus } from '../../builder/sources/http-fetcher.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');

describe('classifyStatus', () => {
  it('passes every 2xx', () => {
    for (const s of [200, 204, 299]) expect(classifyStatus(s, undefined, NOW)).toBeNull();
  });

  it('retries 5xx and 429, not 4xx, and reads Retry-After only on 429 and 503', () => {
    expect(classifyStatus(500, '5', NOW)).toMatchObject({
      retryable: true,
      retryAfterMs: null,
      detail: { code: 'http_status', params: { status: 500 } },
    });
    expect(classifyStatus(503, '5', NOW)).toMatchObject({ retryable: true, retryAfterMs: 5000 });
    expect(classifyStatus(429, 'Sat, 21 Nov 2026 12:00:30 GMT', NOW)).toMatchObject({
      retryable: true,
      retryAfterMs: 30_000,
      detail: { code: 'rate_limited' },
    });
    expect(classifyStatus(404, '5', NOW)).toMatchObject({ retryable: false, retryAfterMs: null });
    expect(classifyStatus(199, undefined, NOW)).toMatchObject({ retryable: false });
  });
});

describe('classifyNetworkError', () => {
  it('tells refused, DNS and other network errors apart, retrying only what may pass', () => {
    expect(classifyNetworkError('ECONNREFUSED', 'h')).toMatchObject({
      retryable: true,
      detail: { code: 'connection_refused' },
    });
    expect(classifyNetworkError('ENOTFOUND', 'example.test')).toMatchObject({
      retryable: false,
      detail: { code: 'dns_error', params: { host: 'example.test' } },
    });
    expect(classifyNetworkError('EAI_AGAIN', 'h')).toMatchObject({
      retryable: true,
      detail: { code: 'dns_error' },
    });
    expect(classifyNetworkError(null, 'h')).toMatchObject({
      retryable: true,
      detail: { code: 'network_error', params: { code: 'unknown' } },
    });
  });
});

describe('retryDecision', () => {
  const f = (over: Partial<Retryable> = {}): Retryable => ({ retryable: true, retryAfterMs: null, ...over });

  it('backs off exponentially from the base, capped, without jitter', () => {
    expect(retryDecision(f(), 0, 5, 60_000, 500)).toBe(500);
    expect(retryDecision(f(), 1, 5, 60_000, 500)).toBe(1000);
    expect(retryDecision(f(), 4, 5, 60_000, 1000)).toBe(BACKOFF_MAX_MS);
  });

  it('stops after the last retry, on a failure not worth retrying, and when the wait would reach the deadline', () => {
    expect(retryDecision(f(), 2, 2, 60_000, 500)).toBeNull();
    expect(retryDecision(f({ retryable: false }), 0, 2, 60_000, 500)).toBeNull();
    expect(retryDecision(f(), 0, 2, 500 + MIN_ATTEMPT_MS - 1, 500)).toBeNull();
    expect(retryDecision(f(), 0, 2, 500 + MIN_ATTEMPT_MS, 500)).toBe(500);
  });

  it('waits exactly what Retry-After asks, or gives up at once saying so when that passes the deadline', async () => {
    expect(retryDecision(f({ retryAfterMs: 2000 }), 0, 2, 10_000, 500)).toBe(2000);
    expect(retryDecision(f({ retryAfterMs: 120_000 }), 0, 2, 10_000, 500)).toBeNull();
    let attempts = 0;
    const failing = (over: Partial<Retryable>) => async () => {
      attempts++;
      return { ok: false as const, failure: f(over) };
    };
    const policy = { retries: 2, backoffBaseMs: 500, deadlineMs: Date.now() + 10_000 };
    const tooLate = await withRetries(failing({ retryAfterMs: 120_000 }), policy);
    expect(tooLate).toMatchObject({ ok: false, failure: { retryAfterPastDeadline: true } });
    expect(attempts).toBe(1);
    const notWorth = await withRetries(failing({ retryAfterMs: 120_000, retryable: false }), policy);
    expect(notWorth).toMatchObject({ ok: false, failure: { retryAfterPastDeadline: false } });
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  it('reads delta seconds and HTTP dates, and ignores garbage', () => {
    expect(parseRetryAfterMs('7', now)).toBe(7000);
    expect(parseRetryAfterMs('Sat, 21 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('soon', now)).toBeNull();
    expect(parseRetryAfterMs(null, now)).toBeNull();
  });

  it('reads the obsolete HTTP date forms as GMT, whatever the machine zone', () => {
    const saved = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati';
    try {
      expect(parseRetryAfterMs('Saturday, 21-Nov-26 12:00:30 GMT', now)).toBe(30_000);
      // asctime() names no zone: it is GMT by definition (RFC 9110 §5.6.7).
      expect(parseRetryAfterMs('Sat Nov 21 12:00:45 2026', now)).toBe(45_000);
      expect(parseRetryAfterMs('Sat, 21 Nov 2026 12:01:00', now)).toBe(60_000);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});
