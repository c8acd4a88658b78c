import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlsIn } from '../../builder/redact.ts';
import {
  cleanEvidence,
  cleanText,
  cleanUrl,
  judgeInstant,
  readDetail,
  TRACKED_ERA_START,
} from '../../builder/sources/sanitize.ts';

const AS_OF = new Date('2026-11-21T12:00:00Z');

describe('redactUrl: the one way a source URL is shown', () => {
  it('keeps the scheme and the host (port included) and nothing else: no userinfo, path, path parameter, query or fragment', () => {
    expect(redactUrl('https://user:pass@feeds.example.test:8443/r/codex/.rss?token=abc&limit=100#sig=x')).toBe(
      'https://feeds.example.test:8443/…',
    );
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
    expect(redactUrlsIn('connect failed: https://h.test/s3cret;jsessionid=x?k=v (at file:///work/a.ts:1:2)')).toBe(
      'connect failed: https://h.test/… (at file:///work/a.ts:1:2)',
    );
  });
});

describe('sanity rules', () => {
  it('passes only http(s) URLs with a host and no credentials', () => {
    expect(cleanUrl(' https://a.test/x?y=1 ')).toBe('https://a.test/x?y=1');
    for (const bad of [
      'javascript:alert(1)',
      'data:text/html,x',
      'https:',
      'ftp://a.test/',
      'https://u:p@a.test/',
      `https://a.test/${'x'.repeat(2100)}`,
      '',
      null,
    ]) {
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

  it('strips a tag that never closes without eating the text after it', () => {
    expect(cleanText('a <b unclosed and more text', 300)).toBe('a unclosed and more text');
    expect(cleanText('keep <i>this</i> and <script unclosed, then this', 300)).toBe(
      'keep this and unclosed, then this',
    );
    expect(cleanText('x </b and y', 300)).toBe('x and y');
    expect(cleanText('before <!-- never closed and after', 300)).toBe('before never closed and after');
    expect(cleanText('a &lt;b unclosed escaped and more', 300)).toBe('a unclosed escaped and more');
    // A `<` that opens no tag is text, whatever follows it.
    expect(cleanText('5 < 6 and 7 > 3', 300)).toBe('5 < 6 and 7 > 3');
    expect(cleanEvidence('line 1 <b unclosed\nline 2', 4000)).toBe('line 1   unclosed\nline 2');
    // An invisible character inside a tag does not hide it.
    expect(cleanText('<\u200Bscript>alert(1)</script>ok', 300)).not.toMatch(/<|script/);
  });

  it('removes every invisible and bidi format character (Cf), tag characters, noncharacters and line separators', () => {
    const removed: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      if (/[\p{Cf}\p{Noncharacter_Code_Point}]/u.test(c) || (cp >= 0xe0000 && cp <= 0xe007f)) removed.push(cp);
    }
    expect(removed.length).toBeGreaterThan(200);
    for (const cp of [
      0x200b, 0x200e, 0x202e, 0x2066, 0x061c, 0xfeff, 0x00ad, 0x2060, 0xe0001, 0xe0041, 0xe007f, 0xfffe, 0xffff, 0xfdd0,
      0x1fffe, 0x10ffff,
    ])
      expect(removed).toContain(cp);
    for (const cp of removed) {
      const c = String.fromCodePoint(cp);
      expect(cleanText(`re${c}set`, 300), cp.toString(16)).toBe('reset');
      expect(cleanEvidence(`re${c}set`, 4000), cp.toString(16)).toBe('reset');
    }
    // Text smuggled in tag characters (invisible "hi") is gone, not decoded.
    expect(
      cleanText(`ok${[...'hi'].map((ch) => String.fromCodePoint(0xe0000 + ch.charCodeAt(0))).join('')}`, 300),
    ).toBe('ok');
    expect(cleanText('a&#x202E;b&#8203;c', 300)).toBe('abc');
    expect(cleanText('one\u2028two\u2029three', 300)).toBe('one two three');
    expect(cleanEvidence('one\u2028two\u2029three', 4000)).toBe('one\ntwo\nthree');
  });

  it('keeps ZWJ inside emoji sequences and ZWJ/ZWNJ between letters of scripts that need them, nowhere else', () => {
    for (const kept of [
      '👩\u200D💻',
      '👨🏽\u200D🚀',
      '❤\uFE0F\u200D🔥',
      '👩\u200D👩\u200D👧',
      'می\u200Cخواهم',
      'क्\u200Dष',
      'ক্\u200Cষ',
    ]) {
      expect(cleanText(kept, 300), kept).toBe(kept);
      expect(cleanEvidence(kept, 4000), kept).toBe(kept);
    }
    for (const [raw, clean] of [
      ['a\u200Db', 'ab'],
      ['a\u200Cb', 'ab'],
      ['👩\u200Da', '👩a'],
      ['a\u200D💻', 'a💻'],
      ['\u200D💻', '💻'],
      ['می\u200C a', 'می a'],
    ] as const) {
      expect(cleanText(raw, 300), raw).toBe(clean);
    }
  });

  it('names every rejection reason with its count', () => {
    expect(readDetail('ok', {}, {}).params).toEqual({});
    expect(readDetail('ok', {}, { future_date: 2, bad_url: 1 }).params).toEqual({
      rejected: 3,
      reasons: 'bad_url 1, future_date 2',
    });
  });
});
