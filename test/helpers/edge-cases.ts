// The table of requests every edge must answer alike (hostile ones included), and a raw HTTP/1.1 client to send them:
// the CloudFront Function against the preview (test/edge/cloudfront.test.ts), the Worker against the preview
// (test/workers/worker.test.ts).
import net from 'node:net';
import { LANGS } from '../../builder/contract.ts';
import { MAX_QUERY_LENGTH, MAX_QUERY_PARAMS, MAX_URI_LENGTH } from '../../builder/edge/route.ts';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The response in `all` once it is complete (its head, and its body by Content-Length or chunked framing, none for
 * HEAD, 204 and 304), or null while it is not; `ended`: the server closed, so a close-delimited body is complete.
 */
function parseResponse(all: Buffer, method: string, ended: boolean): RawResponse | null {
  const split = all.indexOf('\r\n\r\n');
  if (split === -1) return null;
  const [statusLine, ...lines] = all.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const raw = all.subarray(split + 4);
  if (method === 'HEAD' || status === 204 || status === 304) return { status, headers, body: '' };
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = raw.indexOf('\r\n', at);
      if (eol === -1) return null;
      const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
      if (Number.isNaN(size)) return null;
      if (size === 0) return { status, headers, body: Buffer.concat(parts).toString('utf8') };
      if (raw.length < eol + 2 + size + 2) return null;
      parts.push(raw.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
  }
  const length = headers['content-length'];
  if (length !== undefined)
    return raw.length >= Number(length)
      ? { status, headers, body: raw.subarray(0, Number(length)).toString('utf8') }
      : null;
  return ended ? { status, headers, body: raw.toString('utf8') } : null;
}

/**
 * HTTP/1.1 over a plain socket: Node's own client refuses the malformed targets this table exists to send. Done when
 * the response is complete, whether or not the server closes the connection (workerd keeps it open).
 */
export function rawRequest(port: number, method: string, target: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('connect', () => {
      const hasBody = method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
      socket.write(
        `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${hasBody ? 'Content-Length: 0\r\n' : ''}\r\n`,
      );
    });
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const done = parseResponse(Buffer.concat(chunks), method, false);
      if (done !== null) {
        socket.destroy();
        resolve(done);
      }
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const done = parseResponse(Buffer.concat(chunks), method, true);
      if (done === null) reject(new Error(`no complete HTTP response for ${method} ${target}`));
      else resolve(done);
    });
  });
}

/** What a case must come to: an object key the edge rewrites to, or the status of the answer the edge gives itself. */
export interface Case {
  method: string;
  target: string;
  want: string | number;
}

const params = (n: number, extra = ''): string => Array.from({ length: n }, (_, i) => `p${i}=${i}`).join('&') + extra;

export function cases(eventId: string): Case[] {
  const get = (target: string, want: string | number): Case => ({ method: 'GET', target, want });
  return [
    // every endpoint and language
    get('/api/latest', 'api/en/latest.json'),
    ...LANGS.map((l) => get(`/api/latest?lang=${l}`, `api/${l}/latest.json`)),
    get('/api/forecast?lang=de', 'api/de/forecast.json'),
    get('/api/status?lang=ko', 'api/ko/status.json'),
    get('/api/signals?lang=ja', 'api/ja/signals.json'),
    get('/api/accuracy?lang=zh', 'api/zh/accuracy.json'),
    get('/api/history', 'api/en/history.json'),
    get('/api/history?type=global_reset', 'api/en/history/global_reset.json'),
    get('/api/history?lang=ja&type=banked_grant', 'api/ja/history/banked_grant.json'),
    get('/api/history?type=policy_change&lang=de', 'api/de/history/policy_change.json'),
    get(`/api/events/${eventId}`, `api/en/events/${eventId}.json`),
    get(`/api/events/${eventId}?lang=ko`, `api/ko/events/${eventId}.json`),
    get('/api', 'api/index.json'),
    get('/api/', 'api/index.json'),
    get('/api/?lang=de', 'api/index.json'),
    get('/api/openapi.json', 'api/openapi.json'),
    get('/api/schemas/latest.json', 'api/schemas/latest.json'),
    // an event id the store does not list: the translated 404 from the edge, as from the preview
    get('/api/events/no-such-event', 404),
    get('/api/events/2026-01-01.x?lang=zh', 404),
    // well-formed keys without an object: the CDN's custom error response, as the preview's
    get('/api/schemas/no-such-schema.json', 'api/schemas/no-such-schema.json'),
    // lang: case-insensitive, exactly once, supported only
    get('/api/latest?lang=EN', 'api/en/latest.json'),
    get('/api/latest?lang=Zh', 'api/zh/latest.json'),
    get('/api/latest?lang=%64%65', 'api/de/latest.json'),
    get('/api/latest?%6Cang=ja', 'api/ja/latest.json'),
    get('/api/latest?lang=fr', 400),
    get('/api/latest?lang=', 400),
    get('/api/latest?lang', 400),
    get('/api/latest?lang=de+', 400),
    get('/api/latest?lang=de&lang=de', 400),
    get('/api/latest?lang=de&lang=ja', 400),
    get('/api/history?lang=en&type=global_reset&lang=ko', 400),
    get('/api/latest?lang=%E6%97%A5%E6%9C%AC%E8%AA%9E', 400),
    // case folding is ASCII only: the Kelvin sign is not a k, dotless ı not an i, long ſ not an s
    get('/api/latest?lang=%E2%84%AAo', 400),
    get('/api/latest?lang=%E2%84%AAO', 400),
    get('/api/history?type=ban%E2%84%AAed_grant', 400),
    get('/api/history?type=POL%C4%B1CY_CHANGE', 400),
    get('/api/history?type=GLOBAL_RE%C5%BFET', 400),
    get('/api/history?type=BANKED_GRANT&lang=KO', 'api/ko/history/banked_grant.json'),
    get(`/api/latest?lang=${'x'.repeat(200)}`, 400),
    // type
    get('/api/history?type=outage', 400),
    get('/api/history?type=', 400),
    get('/api/history?type=GLOBAL_RESET', 'api/en/history/global_reset.json'),
    get('/api/history?type=__proto__', 400),
    get('/api/latest?__proto__=1&constructor=2', 'api/en/latest.json'),
    get('/api/history?type=global_reset&type=global_reset', 400),
    get('/api/history?type=global_reset&type=banked_grant&lang=de', 400),
    get('/api/latest?type=outage', 'api/en/latest.json'),
    // page: archived history pages (the table's builds have some for every type: test/helpers/paged-data.ts)
    get('/api/history?page=1', 'api/en/history/pages/1.json'),
    get('/api/history?lang=de&page=2', 'api/de/history/pages/2.json'),
    get('/api/history?type=banked_grant&page=1', 'api/en/history/banked_grant/pages/1.json'),
    get('/api/history?page=1&type=GLOBAL_RESET&lang=ZH', 'api/zh/history/global_reset/pages/1.json'),
    get('/api/history?lang=ja&type=policy_change&page=1&utm_source=x', 'api/ja/history/policy_change/pages/1.json'),
    get('/api/history?%70age=%31&lang=ko', 'api/ko/history/pages/1.json'),
    get('/api/history?Page=1', 'api/en/history.json'),
    // well-formed pages not archived: the origin's not-found document
    get('/api/history?page=9999999', 'api/en/history/pages/9999999.json'),
    get('/api/history?type=banked_grant&page=50&lang=de', 'api/de/history/banked_grant/pages/50.json'),
    // values that name no page: the translated 404 from the edge; repeated: 400
    get('/api/history?page=0', 404),
    get('/api/history?page=01', 404),
    get('/api/history?page=abc&lang=ko', 404),
    get('/api/history?page=', 404),
    get('/api/history?page', 404),
    get('/api/history?page=-1&type=global_reset', 404),
    get('/api/history?page=10000000', 404),
    get(`/api/history?page=${'9'.repeat(300)}&lang=ja`, 404),
    get('/api/history?page=1&page=2', 400),
    get('/api/history?page=1&lang=de&page=1', 400),
    get('/api/history?page=1&type=outage', 400),
    get('/api/latest?page=abc', 'api/en/latest.json'),
    get(`/api/events/${eventId}?page=0&page=1`, `api/en/events/${eventId}.json`),
    // unknown parameters are ignored; empty pairs too
    get('/api/latest?utm_source=x&foo=bar&lang=de', 'api/de/latest.json'),
    get('/api/latest?&&lang=ja&&', 'api/ja/latest.json'),
    get('/api/latest?LANG=fr&Lang=xx', 'api/en/latest.json'),
    get(`/api/latest?${params(MAX_QUERY_PARAMS - 1, '&lang=ko')}`, 'api/ko/latest.json'),
    get(`/api/latest?${params(MAX_QUERY_PARAMS + 1)}`, 400),
    get(`/api/latest?${params(25)}`, 400),
    get('/api/latest?a=1&a=2&a=3&lang=zh', 'api/zh/latest.json'),
    // malformed percent-encoding
    get('/api/latest?lang=%E0%A4%A', 400),
    get('/api/latest?%zz=1', 400),
    get('/api/latest?x=%', 400),
    get('/api/latest?x=%C3%28', 400),
    // ids
    get('/api/events/BAD_ID', 404),
    get('/api/events/-leading-dash', 404),
    get(`/api/events/${'a'.repeat(81)}`, 404),
    get('/api/events/', 404),
    get('/api/events/a%20b', 400),
    get('/api/events/id.json/extra', 404),
    // paths: traversal, encodings, doubled slashes, non-ASCII, non-API
    get('/api/../state/state.json', 400),
    get('/api/schemas/../../state/state.json', 400),
    get('/api/%2e%2e/state/state.json', 400),
    get('/api/%2E%2E%2Fstate%2Fstate.json', 400),
    get('/api%2Flatest', 400),
    get('/api/events%2Fx', 400),
    get('//api/latest', 400),
    get('/api//latest', 400),
    get('/api/./latest', 400),
    get('/api/latest/.', 400),
    get('/api/%C3%A9v%C3%A9nements', 400),
    get('/api/latest?lang=de&q=%C3%A9t%C3%A9', 'api/de/latest.json'),
    get('/api/latest/', 404),
    get('/api/latest.json', 404),
    get('/api/en/latest.json', 404),
    get('/api/nope', 404),
    get('/API/latest', 404),
    get('/', 'api/en/index.html'),
    get('/?lang=ja', 'api/ja/index.html'),
    get('/de/', 'api/de/index.html'),
    get('/zh', 'api/zh/index.html'),
    get('/ko/?lang=de', 'api/ko/index.html'),
    get('/fr/', 404),
    get('/EN/', 404),
    get('/en/index.html', 404),
    get('/?lang=fr', 400),
    get('/index.html', 404),
    get('/state/state.json', 404),
    get('/backups/2026-11-21T00-00-00Z/manifest.json', 404),
    get('/favicon.ico?lang=ja', 404),
    // size limits
    get(`/api/${'a'.repeat(MAX_URI_LENGTH)}`, 414),
    get(`/api/latest?x=${'a'.repeat(MAX_QUERY_LENGTH)}`, 414),
    // methods
    { method: 'HEAD', target: '/api/latest?lang=de', want: 'api/de/latest.json' },
    { method: 'HEAD', target: '/api/latest?lang=fr', want: 400 },
    { method: 'HEAD', target: '/api/events/no-such-event', want: 404 },
    { method: 'HEAD', target: '/api/history?page=1&lang=ko', want: 'api/ko/history/pages/1.json' },
    { method: 'HEAD', target: '/api/history?page=0', want: 404 },
    { method: 'OPTIONS', target: '/api/latest', want: 204 },
    { method: 'OPTIONS', target: '/anything?lang=fr', want: 204 },
    { method: 'POST', target: '/api/latest', want: 405 },
    { method: 'PUT', target: '/api/latest?lang=de', want: 405 },
    { method: 'DELETE', target: '/api/latest', want: 405 },
    { method: 'PATCH', target: '/api/events/x', want: 405 },
  ];
}
