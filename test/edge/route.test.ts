import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, HISTORY_PAGE_PATTERN, historyPageKey, historyPagePath, LANGS } from '../../builder/contract.ts';
import { baseHeaders, parseQuery, route, type RouteResult } from '../../builder/edge/route.ts';

const get = (uri: string, query = '', method = 'GET') => route({ method, uri, query });
const asError = (r: RouteResult) => {
  if (r.kind !== 'response') throw new Error(`expected a response, got object ${r.key}`);
  return {
    status: r.status,
    headers: r.headers,
    body: JSON.parse(r.body) as {
      error: { code: string; message: string; valid_values?: string[] };
      meta: { lang: string };
    },
  };
};
const asKey = (r: RouteResult) => {
  if (r.kind !== 'object') throw new Error(`expected an object, got ${r.status} ${r.body}`);
  return r.key;
};

describe('route', () => {
  it('maps every endpoint and language to its object key, English by default', () => {
    for (const name of ['latest', 'history', 'forecast', 'status', 'signals', 'accuracy']) {
      expect(asKey(get(`/api/${name}`))).toBe(`api/en/${name}.json`);
      for (const lang of LANGS) expect(asKey(get(`/api/${name}`, `lang=${lang}`))).toBe(`api/${lang}/${name}.json`);
    }
    expect(asKey(get('/api/events/ledger-2025-11-05-2019', 'lang=ja'))).toBe(
      'api/ja/events/ledger-2025-11-05-2019.json',
    );
    expect(asKey(get('/api/history', 'type=banked_grant&lang=de'))).toBe('api/de/history/banked_grant.json');
  });

  it('serves the human page at /<lang>/ and / (in lang, English by default) as HTML in that language', () => {
    expect(asKey(get('/'))).toBe('api/en/index.html');
    expect(asKey(get('/', 'lang=ZH'))).toBe('api/zh/index.html');
    for (const lang of LANGS) {
      for (const uri of [`/${lang}/`, `/${lang}`]) {
        const r = get(uri, 'lang=en');
        expect(asKey(r)).toBe(`api/${lang}/index.html`);
        expect(r.headers).toEqual({ ...baseHeaders(lang), 'content-type': 'text/html; charset=utf-8' });
        expect(r.headers['cache-control']).toBe('public, max-age=30');
        expect(r.headers['content-language']).toBe(lang);
      }
    }
    for (const uri of ['/fr/', '/EN/', '/en//', '/en/index.html', '/english/'])
      expect(get(uri).kind === 'response', uri).toBe(true);
  });

  it('sets the contract headers on object answers', () => {
    const r = get('/api/latest', 'lang=ko');
    expect(r.headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'content-language': 'ko',
      'cache-control': 'public, max-age=30',
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'ETag, Date, Last-Modified, Content-Language, Content-Length',
    });
  });

  it('treats lang case-insensitively but refuses unsupported, empty and repeated values in English', () => {
    expect(asKey(get('/api/latest', 'lang=EN'))).toBe('api/en/latest.json');
    expect(asKey(get('/api/latest', 'lang=De'))).toBe('api/de/latest.json');
    const fr = asError(get('/api/latest', 'lang=fr'));
    expect(fr.status).toBe(400);
    expect(fr.body.error.code).toBe('unsupported_lang');
    expect(fr.body.error.message).toContain('"fr"');
    expect(fr.body.error.valid_values).toEqual([...LANGS]);
    expect(fr.headers['content-language']).toBe('en');
    expect(asError(get('/api/latest', 'lang=')).body.error.code).toBe('unsupported_lang');
    const twice = asError(get('/api/latest', 'lang=de&lang=ko'));
    expect(twice.status).toBe(400);
    expect(twice.body.error.code).toBe('ambiguous_parameter');
    expect(asError(get('/api/latest', 'lang=en-US')).status).toBe(400);
  });

  it('folds case in ASCII only: a Kelvin sign, dotless i or long s never stands in for a letter of lang or type', () => {
    // U+212A KELVIN SIGN lower-cases to `k`, U+0131 dotless ı and U+017F long ſ upper-case to `I` and `S`.
    for (const lang of ['%E2%84%AAo', '%E2%84%AAO', 'd%C4%B1', 'e%C5%BF', 'K%CC%81o']) {
      const r = asError(get('/api/latest', `lang=${lang}`));
      expect(r.status, lang).toBe(400);
      expect(r.body.error.code).toBe('unsupported_lang');
    }
    expect(asError(get('/api/latest', 'lang=%E2%84%AAo')).body.error.message).toContain('"\u212Ao"');
    for (const type of [
      'ban%E2%84%AAed_grant',
      'BAN%E2%84%AAED_GRANT',
      'pol%C4%B1cy_change',
      'POL%C4%B1CY_CHANGE',
      'global_re%C5%BFet',
      'GLOBAL_RE%C5%BFET',
    ]) {
      const r = asError(get('/api/history', `type=${type}`));
      expect(r.status, type).toBe(400);
      expect(r.body.error.code).toBe('unknown_type');
    }
    expect(asKey(get('/api/history', 'type=BANKED_GRANT&lang=KO'))).toBe('api/ko/history/banked_grant.json');
  });

  it('names the valid types, in the selected language, for an unknown type', () => {
    const en = asError(get('/api/history', 'type=boost'));
    expect(en.status).toBe(400);
    expect(en.body.error.valid_values).toEqual([...EVENT_TYPES]);
    for (const t of EVENT_TYPES) expect(en.body.error.message).toContain(t);
    const de = asError(get('/api/history', 'type=boost&lang=de'));
    expect(de.body.error.message).toMatch(/Unbekannter Ereignistyp/);
    expect(de.headers['content-language']).toBe('de');
    expect(asError(get('/api/history', 'type=global_reset&type=banked_grant')).body.error.code).toBe(
      'ambiguous_parameter',
    );
    expect(asError(get('/api/history', 'type=')).status).toBe(400);
  });

  it('ignores unknown parameters, and type outside history', () => {
    expect(asKey(get('/api/latest', 'foo=bar&lang=zh&x'))).toBe('api/zh/latest.json');
    expect(asKey(get('/api/forecast', 'type=nonsense'))).toBe('api/en/forecast.json');
  });

  it('answers malformed event ids with a translated 404 without touching storage', () => {
    const r = asError(get('/api/events/NOT_AN_ID', 'lang=ja'));
    expect(r.status).toBe(404);
    // The same code as an unknown well-formed id (the stored not-found document): one code for a missing event.
    expect(r.body.error.code).toBe('not_found');
    expect(r.body.error.message).toContain('イベント');
  });

  it('answers OPTIONS with a 204 preflight and other methods with 405', () => {
    const o = get('/api/latest', '', 'OPTIONS');
    expect(o.kind).toBe('response');
    if (o.kind === 'response') {
      expect(o.status).toBe(204);
      expect(o.body).toBe('');
      expect(o.headers['access-control-allow-origin']).toBe('*');
      expect(o.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
      expect(o.headers['access-control-allow-headers']).toBe('*');
    }
    for (const m of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = asError(get('/api/latest', '', m));
      expect(r.status).toBe(405);
      expect(r.headers['allow']).toBe('GET, HEAD, OPTIONS');
    }
    expect(asKey(get('/api/latest', '', 'HEAD'))).toBe('api/en/latest.json');
  });

  it('never maps hostile paths outside api/', () => {
    const hostile = [
      '/api/../state/state.json',
      '/api/events/..',
      '/api/events/../../etc/passwd',
      '/api/%2e%2e/state.json',
      '/api/events/a%2Fb',
      '/api//latest',
      '/api/latest/',
      '/api/évènements',
      '/api/events/\u0000',
      '/state/state.json',
      '/backups/x/manifest.json',
      '/',
      '',
      '/api/events/a/b',
      '/api/schemas/../../x.json',
    ];
    for (const uri of hostile) {
      const r = get(uri);
      if (r.kind === 'object') expect(r.key).toMatch(/^api\/[a-z0-9._/-]+$/);
      else expect([400, 404]).toContain(r.status);
      if (r.kind === 'object') expect(r.key).not.toContain('..');
    }
    expect(asError(get('/api/../state/state.json')).status).toBe(400);
  });

  it('refuses oversized requests, too many parameters and malformed encoding', () => {
    expect(asError(get('/api/' + 'a'.repeat(600))).status).toBe(414);
    expect(asError(get('/api/latest', 'x=' + 'a'.repeat(2000))).status).toBe(414);
    expect(asError(get('/api/latest', Array.from({ length: 25 }, (_, i) => `p${i}=1`).join('&'))).body.error.code).toBe(
      'too_many_parameters',
    );
    expect(asError(get('/api/latest', 'lang=%E0%A4%A')).body.error.code).toBe('malformed_query');
  });

  it('measures the path and the query apart, exactly as docs/api.md states the 414 rule', () => {
    const path512 = '/api/' + 'a'.repeat(512 - '/api/'.length);
    expect(path512.length).toBe(512);
    expect(get(path512).kind === 'response' && (get(path512) as { status: number }).status).not.toBe(414);
    expect(asError(get(path512 + 'a')).status).toBe(414);
    const query1024 = 'x=' + 'a'.repeat(1022);
    expect(get('/api/latest', query1024).kind).toBe('object');
    expect(asError(get('/api/latest', query1024 + 'a')).status).toBe(414);
    // The whole URI (path, ?, query) is far over 512 characters and still served.
    const query600 = 'lang=de&x=' + 'a'.repeat(590);
    expect(`/api/latest?${query600}`.length).toBeGreaterThan(600);
    expect(get('/api/latest', query600)).toMatchObject({ kind: 'object', lang: 'de' });
  });

  it('parses repeated and encoded query parameters', () => {
    expect(parseQuery('a=1&a=2&b=%20x+y&c')).toEqual({ a: ['1', '2'], b: [' x y'], c: [''] });
    expect(parseQuery('%')).toBeNull();
  });

  it('serves the index, OpenAPI document and JSON Schemas under readable keys', () => {
    expect(asKey(get('/api'))).toBe('api/index.json');
    expect(asKey(get('/api/'))).toBe('api/index.json');
    expect(asKey(get('/api/openapi.json'))).toBe('api/openapi.json');
    expect(asKey(get('/api/schemas/latest.json'))).toBe('api/schemas/latest.json');
  });
});

describe('route: archived history pages (?page=N)', () => {
  it('maps page N of every language and type (null: every type) to its key', () => {
    for (const lang of LANGS) {
      expect(asKey(get('/api/history', `lang=${lang}&page=1`))).toBe(`api/${lang}/history/pages/1.json`);
      for (const type of EVENT_TYPES)
        expect(asKey(get('/api/history', `page=12&type=${type}&lang=${lang}`))).toBe(
          `api/${lang}/history/${type}/pages/12.json`,
        );
    }
    expect(historyPageKey('de', null, 3)).toBe('api/de/history/pages/3.json');
    expect(historyPageKey('de', 'banked_grant', 3)).toBe('api/de/history/banked_grant/pages/3.json');
    expect(asKey(get('/api/history', 'page=2'))).toBe('api/en/history/pages/2.json');
  });

  it('routes every next link the build publishes (contract.ts historyPagePath) to the key of that page', () => {
    for (const lang of LANGS) {
      for (const type of [null, ...EVENT_TYPES]) {
        for (const n of [1, 7, 9_999_999]) {
          const [uri, query] = historyPagePath(lang, type, n).split('?') as [string, string];
          const r = get(uri, query);
          expect(asKey(r)).toBe(historyPageKey(lang, type, n));
          expect(r.headers['content-language']).toBe(lang);
          expect(r.headers['cache-control']).toBe('public, max-age=30');
        }
      }
    }
  });

  it('takes type and lang in any case and order next to page, with the contract headers', () => {
    const r = get('/api/history', 'TYPE=x&type=BANKED_GRANT&page=4&lang=Ja');
    expect(asKey(r)).toBe('api/ja/history/banked_grant/pages/4.json');
    expect(r.headers).toEqual(baseHeaders('ja'));
    expect(asKey(get('/api/history', 'page=4&lang=ko&type=Policy_Change'))).toBe(
      'api/ko/history/policy_change/pages/4.json',
    );
    // Parameter names are case-sensitive, as for lang: Page is an unknown parameter, ignored.
    expect(asKey(get('/api/history', 'Page=4&PAGE=5'))).toBe('api/en/history.json');
    expect(asKey(get('/api/history', 'Page=4&type=global_reset'))).toBe('api/en/history/global_reset.json');
  });

  it('refuses a repeated page with 400 ambiguous_parameter, whether the values agree or one is malformed', () => {
    for (const q of [
      'page=1&page=2',
      'page=1&page=1',
      'page=abc&page=1',
      'page=&page=',
      'type=global_reset&page=2&lang=de&page=3',
    ]) {
      const r = asError(get('/api/history', q));
      expect(r.status, q).toBe(400);
      expect(r.body.error.code, q).toBe('ambiguous_parameter');
      expect(r.body.error.message, q).toContain('page');
    }
    expect(asError(get('/api/history', 'page=1&page=2&lang=zh')).headers['content-language']).toBe('zh');
  });

  it('answers a value that names no page (zero, leading zero, sign, fraction, exponent, letters, empty, over 7 digits) with a translated 404', () => {
    const bad = [
      '0',
      '00',
      '01',
      '007',
      '-1',
      '+1',
      '1.0',
      '1.',
      '1e2',
      '0x10',
      'abc',
      'one',
      '',
      ' 1',
      '1 ',
      '١',
      '１',
      '10000000',
      '99999999999999999999',
      '9'.repeat(900),
    ];
    for (const v of bad) {
      expect(HISTORY_PAGE_PATTERN.test(v), v).toBe(false);
      const r = asError(get('/api/history', `lang=de&page=${encodeURIComponent(v)}`));
      expect(r.status, v).toBe(404);
      expect(r.body.error.code, v).toBe('not_found');
      expect(r.headers['content-language'], v).toBe('de');
      expect(r.body.error.message, v).toMatch(/^Diese Ressource gibt es nicht: \/api\/history\?page=/);
      // The value is echoed capped, whatever its length.
      expect(r.body.error.message.length, v).toBeLessThan(120);
    }
    // A bad page is a 404 after type is checked: an unknown type stays a 400 naming the types.
    expect(asError(get('/api/history', 'type=boost&page=0')).body.error.code).toBe('unknown_type');
    expect(asError(get('/api/history', 'type=banked_grant&page=0')).status).toBe(404);
    // A repeated lang is refused before anything about the page.
    expect(asError(get('/api/history', 'lang=de&lang=ja&page=1')).body.error.code).toBe('ambiguous_parameter');
  });

  it('passes the largest page numbers on: 9999999 is a key (the origin answers whether it exists)', () => {
    expect(asKey(get('/api/history', 'page=9999999'))).toBe('api/en/history/pages/9999999.json');
    expect(asKey(get('/api/history', 'page=1000000&type=global_reset'))).toBe(
      'api/en/history/global_reset/pages/1000000.json',
    );
    expect(asKey(get('/api/history', 'page=%31%30'))).toBe('api/en/history/pages/10.json');
  });

  it('ignores page on every other endpoint, malformed or repeated', () => {
    for (const name of ['latest', 'forecast', 'status', 'signals', 'accuracy']) {
      for (const q of ['page=2', 'page=abc', 'page=1&page=2', 'page=0&lang=ko']) {
        expect(asKey(get(`/api/${name}`, q)), `${name} ${q}`).toBe(
          `api/${q.includes('ko') ? 'ko' : 'en'}/${name}.json`,
        );
      }
    }
    expect(asKey(get('/api/events/ledger-2025-11-05-2019', 'page=2&lang=ja'))).toBe(
      'api/ja/events/ledger-2025-11-05-2019.json',
    );
    expect(asKey(get('/api', 'page=abc'))).toBe('api/index.json');
    expect(asKey(get('/api/schemas/history-page.json', 'page=1&page=2'))).toBe('api/schemas/history-page.json');
    expect(asKey(get('/de/', 'page=2'))).toBe('api/de/index.html');
  });
});
