// Paged history (issue #23) over real HTTP, through every host of the API (the preview and the Worker in workerd): a
// build large enough that every type has archived pages, read as a client reads it, by following `next` from the
// newest document. Then a second tick with one newer event into the same dist/ and state: every archived page is
// served with the same bytes and the same validators, and only the newest documents change.
import { mkdtemp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  archivedPageCount,
  EVENT_TYPES,
  EXPOSE_HEADERS,
  HISTORY_PAGE_SIZE,
  historyByTypeKey,
  historyPageKey,
  historyPagePath,
  JSON_CONTENT_TYPE,
  LANGS,
  NOT_FOUND_CONTENT_LANGUAGE,
  NOT_FOUND_KEY,
  type EventType,
  type Lang,
} from '../../builder/contract.ts';
import type { EventInput } from '../../builder/model/schemas.ts';
import { DOCUMENT_SCHEMAS } from '../../builder/render/schemas.ts';
import { listFiles } from '../helpers/files.ts';
import { createTempBuild, type TempBuild } from '../helpers/build.ts';
import { pagedEvent, pagedEvents, writePagedData } from '../helpers/paged-data.ts';
import { TARGETS, startTarget, type ServedApi, type TargetName } from '../helpers/targets.ts';

const NOW = '2026-11-21T12:00:00Z';
const LATER = '2026-11-21T12:15:00Z';
/**
 * Every type has archived pages, global resets two; 799 in all, so the newer event of the second tick archives a
 * seventh page of the full list (800) while global_reset (301) only grows its newest document.
 */
const COUNTS: Record<EventType, number> = { global_reset: 300, banked_grant: 200, policy_change: 299 };
const VARIANTS: readonly (EventType | null)[] = [null, ...EVENT_TYPES];

let events: EventInput[];
let newer: EventInput;
let dataDir: string;
let b: TempBuild;

beforeAll(async () => {
  events = pagedEvents(COUNTS, NOW);
  newer = pagedEvent('paged-newer-reset', 'global_reset', '2026-11-21T12:05:00Z');
  dataDir = await writePagedData(await mkdtemp(path.join(tmpdir(), 'rsa-paged-')), events);
  b = await createTempBuild();
  await b.build(NOW, [], dataDir);
});

/** The ids of `list` of `type` (null: every type), newest first, as every history lists them. */
const idsOf = (list: readonly EventInput[], type: EventType | null) =>
  list
    .filter((e) => type === null || e.type === type)
    .map((e) => e.id)
    .reverse();

interface Served {
  path: string;
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

async function get(api: ServedApi, p: string, init?: RequestInit): Promise<Served> {
  const res = await fetch(api.url + p, init);
  const text = await res.text();
  return {
    path: p,
    status: res.status,
    text,
    body: text !== '' && res.headers.get('content-type') === JSON_CONTENT_TYPE ? JSON.parse(text) : null,
    headers: res.headers,
  };
}

const newestPath = (lang: Lang, type: EventType | null) =>
  `/api/history?lang=${lang}` + (type === null ? '' : `&type=${type}`);

/** The newest document of (lang, type) and every page its `next` chain leads to, fetched at the paths as published. */
async function readChain(
  api: ServedApi,
  lang: Lang,
  type: EventType | null,
): Promise<{ newest: Served; pages: Served[] }> {
  const newest = await get(api, newestPath(lang, type));
  expect(newest.status, newest.path).toBe(200);
  const pages: Served[] = [];
  // Bounded: a chain longer than the archived pages is a loop, and fails below.
  for (let next: string | null = newest.body.next; next !== null && pages.length <= newest.body.archived_pages;) {
    const page = await get(api, next);
    expect(page.status, next).toBe(200);
    pages.push(page);
    next = page.body.next;
  }
  return { newest, pages };
}

/** Every archived page of every language and type as served: path → body, ETag and Last-Modified. */
async function servedPages(
  api: ServedApi,
): Promise<Map<string, { text: string; etag: string | null; lastModified: string | null }>> {
  const out = new Map<string, { text: string; etag: string | null; lastModified: string | null }>();
  for (const lang of LANGS) {
    for (const type of VARIANTS) {
      for (const p of (await readChain(api, lang, type)).pages)
        out.set(p.path, { text: p.text, etag: p.headers.get('etag'), lastModified: p.headers.get('last-modified') });
    }
  }
  return out;
}

function expectContractHeaders(s: Served, lang: string) {
  expect(s.headers.get('content-type'), s.path).toBe(JSON_CONTENT_TYPE);
  expect(s.headers.get('content-language'), s.path).toBe(lang);
  expect(s.headers.get('cache-control'), s.path).toBe('public, max-age=30');
  expect(s.headers.get('access-control-allow-origin'), s.path).toBe('*');
  expect(s.headers.get('access-control-expose-headers'), s.path).toBe(EXPOSE_HEADERS);
}

describe.each(TARGETS)('paged history through the %s', (target) => {
  let api: ServedApi;
  beforeAll(async () => {
    api = await startTarget(target, b.outDir);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('every page of every type and language resolves by following next; together they list every event once, newest first', async () => {
    let pagesRead = 0;
    for (const lang of LANGS) {
      for (const type of VARIANTS) {
        const want = idsOf(events, type);
        const archived = archivedPageCount(want.length);
        expect(archived, `${lang} ${type}`).toBeGreaterThan(0);
        const { newest, pages } = await readChain(api, lang, type);
        expectContractHeaders(newest, lang);
        expect(DOCUMENT_SCHEMAS.history.safeParse(newest.body).success, newest.path).toBe(true);
        expect(newest.body).toMatchObject({
          meta: { lang },
          type,
          count: want.length,
          page_size: HISTORY_PAGE_SIZE,
          archived_pages: archived,
          next: historyPagePath(lang, type, archived),
        });
        expect(newest.body.events.length, newest.path).toBe(want.length - archived * HISTORY_PAGE_SIZE);
        expect(
          pages.map((p) => p.body.page),
          newest.path,
        ).toEqual(Array.from({ length: archived }, (_, i) => archived - i));
        for (const p of pages) {
          const n = p.body.page as number;
          expectContractHeaders(p, lang);
          expect(DOCUMENT_SCHEMAS['history-page'].safeParse(p.body).success, p.path).toBe(true);
          expect(p.body, p.path).toMatchObject({
            meta: { lang },
            type,
            page_size: HISTORY_PAGE_SIZE,
            first_position: (n - 1) * HISTORY_PAGE_SIZE + 1,
            next: n > 1 ? historyPagePath(lang, type, n - 1) : null,
          });
          expect(p.body.count, p.path).toBeUndefined();
          // Page n holds positions (n-1)*size+1 .. n*size counted from the oldest, newest first.
          expect(
            p.body.events.map((e: { id: string }) => e.id),
            p.path,
          ).toEqual(want.slice(want.length - n * HISTORY_PAGE_SIZE, want.length - (n - 1) * HISTORY_PAGE_SIZE));
          // The router sends the path to the key the build wrote it under.
          expect(p.text, p.path).toBe(await readFile(path.join(b.outDir, historyPageKey(lang, type, n)), 'utf8'));
        }
        const read = [newest, ...pages].flatMap((d) => d.body.events.map((e: { id: string }) => e.id));
        expect(new Set(read).size, `${lang} ${type}: repeated`).toBe(read.length);
        expect(read, `${lang} ${type}`).toEqual(want);
        pagesRead += pages.length;
      }
    }
    // 6 + 2 + 1 + 1 archived pages, in five languages.
    expect(pagesRead).toBe(LANGS.length * 10);
  });

  it('the chain reads exactly the events the build published (its event documents)', async () => {
    const published = (await listFiles(path.join(b.outDir, 'api/en/events')))
      .map((f) => f.replace(/\.json$/, ''))
      .sort();
    const { newest, pages } = await readChain(api, 'en', null);
    const read = [newest, ...pages].flatMap((d) => d.body.events.map((e: { id: string }) => e.id));
    expect(read.slice().sort()).toEqual(published);
    expect(published).toEqual(events.map((e) => e.id).sort());
  });

  it('translates pages like every document: same ids, enums and times, translated titles', async () => {
    const en = await get(api, historyPagePath('en', null, 3));
    for (const lang of LANGS.filter((l) => l !== 'en')) {
      const other = await get(api, historyPagePath(lang, null, 3));
      expect(
        other.body.events.map((e: { id: string; type: string; occurred_at: string }) => [e.id, e.type, e.occurred_at]),
      ).toEqual(
        en.body.events.map((e: { id: string; type: string; occurred_at: string }) => [e.id, e.type, e.occurred_at]),
      );
      expect(other.body.events[0].title, lang).not.toBe(en.body.events[0].title);
    }
  });

  it('page and type in any order and case: ?page=1&type=banked_grant is the first banked_grant page', async () => {
    const file = (lang: Lang, type: EventType | null, n: number) =>
      readFile(path.join(b.outDir, historyPageKey(lang, type, n)), 'utf8');
    for (const [p, lang, type, n] of [
      ['/api/history?page=1&type=banked_grant', 'en', 'banked_grant', 1],
      ['/api/history?type=BANKED_GRANT&page=1&lang=KO', 'ko', 'banked_grant', 1],
      ['/api/history?lang=zh&page=2&type=global_reset', 'zh', 'global_reset', 2],
      ['/api/history?page=6', 'en', null, 6],
      ['/api/history?page=1&utm_source=x&lang=de', 'de', null, 1],
    ] as const) {
      const s = await get(api, p);
      expect(s.status, p).toBe(200);
      expectContractHeaders(s, lang);
      expect(s.text, p).toBe(await file(lang, type, n));
    }
  });

  it('a page value that names no page is a 404 in the selected language; a repeated page a 400', async () => {
    const notFoundDoc = await readFile(path.join(b.outDir, NOT_FOUND_KEY), 'utf8');
    for (const v of [
      '0',
      '01',
      '007',
      'abc',
      '-1',
      '1.0',
      '1e2',
      '+1',
      '',
      '%31%32x',
      '12345678',
      '99999999999999999999',
    ]) {
      const s = await get(api, `/api/history?lang=de&page=${v}`);
      expect(s.status, v).toBe(404);
      expectContractHeaders(s, 'de');
      expect(s.body.error.code, v).toBe('not_found');
      expect(s.body.meta.lang, v).toBe('de');
      expect(s.text, v).not.toBe(notFoundDoc);
      expect(DOCUMENT_SCHEMAS.error.safeParse(s.body).success, v).toBe(true);
    }
    for (const q of ['page=1&page=2', 'page=1&page=1', 'page=1&lang=ja&page=abc', 'type=global_reset&page=2&page=1']) {
      const s = await get(api, `/api/history?${q}`);
      expect(s.status, q).toBe(400);
      expect(s.body.error.code, q).toBe('ambiguous_parameter');
      expect(s.headers.get('access-control-allow-origin'), q).toBe('*');
    }
  });

  it('a page not archived (yet) is the 404 of the origin: the not-found document', async () => {
    const notFoundDoc = await readFile(path.join(b.outDir, NOT_FOUND_KEY), 'utf8');
    // One past the archived pages of the full list, of banked_grant and of global_reset, and the largest page number.
    for (const p of [
      '/api/history?page=7',
      '/api/history?type=banked_grant&page=2&lang=ja',
      '/api/history?type=global_reset&page=3',
      '/api/history?page=9999999',
    ]) {
      const s = await get(api, p);
      expect(s.status, p).toBe(404);
      expect(s.headers.get('content-language'), p).toBe(NOT_FOUND_CONTENT_LANGUAGE);
      expect(s.headers.get('access-control-allow-origin'), p).toBe('*');
      expect(s.headers.get('cache-control'), p).toBe('public, max-age=30');
      expect(s.text, p).toBe(notFoundDoc);
    }
  });

  it('serves pages with validators: HEAD without a body, If-None-Match answered 304, CORS preflight', async () => {
    const p = historyPagePath('ja', 'policy_change', 1);
    const first = await get(api, p);
    const etag = first.headers.get('etag');
    expect(etag, p).toBeTruthy();
    const again = await get(api, p, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('content-language')).toBe('ja');
    const head = await get(api, p, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-language')).toBe('ja');
    const opt = await fetch(api.url + p, { method: 'OPTIONS' });
    expect(opt.status).toBe(204);
    expect(opt.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('a newer event (a second tick into the same dist/ and state)', () => {
  const before = new Map<TargetName, Map<string, { text: string; etag: string | null; lastModified: string | null }>>();
  const after = new Map<TargetName, Map<string, { text: string; etag: string | null; lastModified: string | null }>>();
  const newestBefore = new Map<string, string>();

  beforeAll(async () => {
    const read = async (
      into: Map<TargetName, Map<string, { text: string; etag: string | null; lastModified: string | null }>>,
    ) => {
      for (const target of TARGETS) {
        const api = await startTarget(target, b.outDir);
        try {
          into.set(target, await servedPages(api));
        } finally {
          await api.close();
        }
      }
    };
    await read(before);
    for (const lang of LANGS)
      for (const type of VARIANTS)
        newestBefore.set(
          `${lang} ${type}`,
          await readFile(
            path.join(b.outDir, type === null ? `api/${lang}/history.json` : historyByTypeKey(lang, type)),
            'utf8',
          ),
        );
    // The newest document of the preview carries the file's mtime in its validators: a second apart, they differ.
    await new Promise((r) => setTimeout(r, 1100));
    await writePagedData(dataDir, [...events, newer]);
    await b.build(LATER, [], dataDir);
    await read(after);
  });

  it.each(TARGETS)(
    'through the %s: every archived page keeps its bytes, ETag and Last-Modified; the new page 7 is served',
    (target) => {
      const was = before.get(target)!;
      const now = after.get(target)!;
      expect(was.size).toBe(LANGS.length * 10);
      for (const [p, old] of was) {
        const cur = now.get(p);
        expect(cur, p).toBeDefined();
        expect(cur!.text, p).toBe(old.text);
        expect(old.etag, p).toBeTruthy();
        expect(cur!.etag, p).toBe(old.etag);
        expect(cur!.lastModified, p).toBe(old.lastModified);
      }
      // The 800th event archived page 7 of the full list in every language; nothing else is new.
      expect([...now.keys()].filter((p) => !was.has(p)).sort()).toEqual(
        LANGS.map((l) => historyPagePath(l, null, 7)).sort(),
      );
    },
  );

  it.each(TARGETS)(
    'through the %s: the newest documents change (their coverage counts the records), global_reset and the full list by the new event',
    async (target) => {
      const api = await startTarget(target, b.outDir);
      try {
        for (const lang of LANGS) {
          for (const type of VARIANTS) {
            const want = idsOf([...events, newer], type);
            const { newest, pages } = await readChain(api, lang, type);
            const changed = type === null || type === 'global_reset';
            expect(newest.text === newestBefore.get(`${lang} ${type}`), newest.path).toBe(false);
            expect(newest.body.coverage.archives[0].records, newest.path).toBe(events.length + 1);
            expect(newest.body.count, newest.path).toBe(want.length);
            expect(newest.body.events[0].id, newest.path).toBe(changed ? newer.id : want[0]);
            expect([newest, ...pages].flatMap((d) => d.body.events.map((e: { id: string }) => e.id))).toEqual(want);
          }
        }
        const seventh = await get(api, '/api/history?lang=ko&page=7');
        expect(seventh.body).toMatchObject({ page: 7, first_position: 601, next: historyPagePath('ko', null, 6) });
        expect((await get(api, '/api/history?lang=ko')).body).toMatchObject({
          count: 800,
          archived_pages: 7,
          next: historyPagePath('ko', null, 7),
        });
      } finally {
        await api.close();
      }
    },
  );
});
