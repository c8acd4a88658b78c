import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlsIn } from '../../builder/sources/redact.ts';
import { cleanEvidence, cleanText, cleanUrl, judgeInstant, rejectionParams, TRACKED_ERA_START } from '../../builder/sources/sanitize.ts';

const AS_OF = new Date('2026-11-21T12:00:00Z');

describe('redactUrl: the one way a source URL is shown', () => {
  it('keeps the scheme and the host (port included) and nothing else: no userinfo, path, path parameter, query or fragment', () => {
    expect(redactUrl('https://user:pass@feeds.example.test:8443/r/codex/.rss?token=abc&limit=100#sig=x')).toBe('https://feeds.example.test:8443/…');
    expect(redactUrl('http://127.0.0.1:9/api?api_key=k1&sig=s2&sig=s3')).toBe('http://127.0.0.1:9/…');
    expect(redactUrl('https://only-user@h.test/')).toBe('https://h.test/…');
    expect(redactUrl('https://h.test/private-feed-8f2a/rss;jsessionid=ABC123?secretName=v')).toBe('https://h.test/…');
    // The default port is not written out by the URL parser, so it is not shown either.
    expect(redactUrl('HTTPS://H.TEST:443')).toBe('https://h.test/…');
  });

  it('shows nothing of an unparseable value or of another kind of URL, not even its scheme', () => {
    expect(redactUrl('not a url secret123')).toBe('(redacted)');
    expect(redactUrl('javascript:alert(document.cookie)')).toBe('(redacted)');
    expect(redactUrl('tok3n:abc')).toBe('(redacted)');
    expect(redactUrl('file:///etc/passwd')).toBe('(redacted)');
  });

  it('redacts every http(s) URL inside a message, leaving the rest of it', () => {
    expect(redactUrlsIn('connect failed: https://h.test/s3cret;jsessionid=x?k=v (at file:///work/a.ts:1:2)')).toBe('connect failed: https://h.test/… (at file:///work/a.ts:1:2)');
  });
});

describe('sanity rules', () => {
  it('passes only http(s) URLs with a host and no credentials', () => {
    expect(cleanUrl(' https://a.test/x?y=1 ')).toBe('https://a.test/x?y=1');
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'https:', 'ftp://a.test/', 'https://u:p@a.test/', `https://a.test/${'x'.repeat(2100)}`, '', null]) {
      expect(cleanUrl(bad), String(bad)).toBeNull();
    }
  });

  it('judges instants against asOf plus the skew and the tracked era', () => {
    expect(judgeInstant('2026-11-21T12:09:59Z', AS_OF)).toBe('ok');
    expect(judgeInstant('2026-11-21T12:10:01Z', AS_OF)).toBe('future_date');
    expect(judgeInstant('9999-12-31T00:00:00Z', AS_OF)).toBe('future_date');
    expect(judgeInstant(TRACKED_ERA_START, AS_OF)).toBe('ok');
    expect(judgeInstant('2024-12-31T23:59:59Z', AS_OF)).toBe('before_era');
    expect(judgeInstant('soon', AS_OF)).toBe('bad_date');
  });

  it('cleans text to one capped line without markup or control characters; evidence keeps its lines', () => {
    expect(cleanText('<b>Hi</b>\u0000 &lt;script&gt;x&lt;/script&gt;\u202e there', 300)).toBe('Hi there');
    expect(cleanText('x'.repeat(500), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(cleanEvidence(' line 1\r\nline <i>2</i>\u0007 &amp; ', 4000)).toBe('line 1\nline  2  &amp;');
  });

  it('names every rejection reason with its count', () => {
    expect(rejectionParams({})).toEqual({});
    expect(rejectionParams({ future_date: 2, bad_url: 1 })).toEqual({ rejected: 3, reasons: 'bad_url 1, future_date 2' });
  });
});
