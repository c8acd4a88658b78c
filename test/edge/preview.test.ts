// The preview's file answers over a small hand-made dist/: it answers plain reads itself with the bytes http-server
// would send, leaves conditional requests to http-server with the contract headers kept, and decides afresh on every
// request whether an object exists.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_CONTROL, JSON_CONTENT_TYPE, NOT_FOUND_CONTENT_LANGUAGE, NOT_FOUND_KEY } from '../../builder/contract.ts';
import { startPreview, type PreviewServer } from '../../builder/edge/preview.ts';

const LATEST_DE = '{"meta":{"lang":"de"},"reset":false}\n';
const NOT_FOUND = '{"error":{"status":404,"code":"not_found","messages":{}},"meta":{"lang":null}}\n';

let dist: string;
let preview: PreviewServer;

const contractHeaders = (res: Response) => ({
  'content-type': res.headers.get('content-type'),
  'content-language': res.headers.get('content-language'),
  'cache-control': res.headers.get('cache-control'),
  'access-control-allow-origin': res.headers.get('access-control-allow-origin'),
});
const contract = (lang: string) => ({
  'content-type': JSON_CONTENT_TYPE,
  'content-language': lang,
  'cache-control': CACHE_CONTROL,
  'access-control-allow-origin': '*',
});

/** The raw response, Date masked: Node's own client would normalize away what this compares. */
function rawGet(url: string, target: string, extra = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Connection: close\r\n\r\n`);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () =>
      resolve(
        Buffer.concat(chunks)
          .toString('latin1')
          .replace(/\r\nDate: [^\r]*/, '\r\nDate: -'),
      ),
    );
  });
}

beforeAll(async () => {
  dist = await mkdtemp(path.join(os.tmpdir(), 'preview-test-'));
  await mkdir(path.join(dist, 'api/de/events'), { recursive: true });
  await mkdir(path.dirname(path.join(dist, NOT_FOUND_KEY)), { recursive: true });
  await writeFile(path.join(dist, 'api/de/latest.json'), LATEST_DE);
  await writeFile(path.join(dist, NOT_FOUND_KEY), NOT_FOUND);
  preview = await startPreview({ root: dist, port: 0 });
});

afterAll(async () => {
  await preview?.close();
  if (dist) await rm(dist, { recursive: true, force: true });
});

describe('the preview command line', () => {
  it('refuses a --now without a zone (it would be read in the machine zone)', () => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'builder/edge/preview.ts', '--port', '0', '--dir', dist, '--now', '2026-11-21T12:10:00'],
      {
        cwd: new URL('../../', import.meta.url).pathname,
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--now wants an ISO 8601 instant with a zone');
  });
});

describe('the preview serving objects', () => {
  it('answers an object with the contract headers, its bytes and a validator', async () => {
    const res = await fetch(`${preview.url}/api/latest?lang=de`);
    expect(res.status).toBe(200);
    expect(contractHeaders(res)).toEqual(contract('de'));
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(LATEST_DE)));
    expect(res.headers.get('etag')).toBeTruthy();
    expect(await res.text()).toBe(LATEST_DE);
  });

  it('answers a plain read with exactly the bytes http-server sends for the same object', async () => {
    // An If-Modified-Since long past makes http-server itself answer with the full 200.
    const own = await rawGet(preview.url, '/api/latest?lang=de');
    const httpServer = await rawGet(
      preview.url,
      '/api/latest?lang=de',
      'If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT\r\n',
    );
    expect(own).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(own).toBe(httpServer);
  });

  it('answers a matching If-None-Match with an empty 304 that keeps the contract headers', async () => {
    const etag = (await fetch(`${preview.url}/api/latest?lang=de`)).headers.get('etag') ?? '';
    const res = await fetch(`${preview.url}/api/latest?lang=de`, { headers: { 'if-none-match': etag } });
    expect(res.status).toBe(304);
    expect(contractHeaders(res)).toEqual(contract('de'));
    expect(await res.text()).toBe('');
  });

  it("keeps the page's HTML content type when http-server answers a conditional request for it", async () => {
    await writeFile(path.join(dist, 'api/de/index.html'), '<!doctype html><html lang="de"></html>');
    const first = await fetch(`${preview.url}/de/`);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    for (const etag of [first.headers.get('etag') ?? '', '"other"']) {
      const res = await fetch(`${preview.url}/de/`, { headers: { 'if-none-match': etag } });
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-language')).toBe('de');
    }
  });

  it('sees objects appear and disappear while it runs, answering a missing one with the not-found document', async () => {
    const file = path.join(dist, 'api/de/events/e-1.json');
    const missing = await fetch(`${preview.url}/api/events/e-1?lang=de`);
    expect(missing.status).toBe(404);
    expect(contractHeaders(missing)).toEqual(contract(NOT_FOUND_CONTENT_LANGUAGE));
    expect(await missing.text()).toBe(NOT_FOUND);

    await writeFile(file, '{"event":{"id":"e-1"}}');
    const found = await fetch(`${preview.url}/api/events/e-1?lang=de`);
    expect(found.status).toBe(200);
    expect(await found.text()).toBe('{"event":{"id":"e-1"}}');

    await unlink(file);
    const gone = await fetch(`${preview.url}/api/events/e-1?lang=de`, { method: 'HEAD' });
    expect(gone.status).toBe(404);
    expect(contractHeaders(gone)).toEqual(contract(NOT_FOUND_CONTENT_LANGUAGE));
    expect(await gone.text()).toBe('');
  });

  it('answers a key that is a directory as missing', async () => {
    await mkdir(path.join(dist, 'api/de/events/dir.json'), { recursive: true });
    const res = await fetch(`${preview.url}/api/events/dir?lang=de`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(NOT_FOUND);
  });
});
