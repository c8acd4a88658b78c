import { createHash } from 'node:crypto';
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../builder/errors.ts';
import { createS3Sink } from '../../builder/publish/s3-sink.ts';
import { DEFAULT_LIST_MAX_AGE_MS } from '../../builder/s3/config.ts';
import { PHASE, type OutputDocument } from '../../builder/render/output.ts';
import { byPhase, doc, sampleBuild, sinkContract, stream } from '../contracts/sink.ts';
import { startS3Proxy, type S3Proxy, type S3Request } from '../helpers/s3-proxy.ts';
import {
  createTestBucket,
  createTestClient,
  describeS3,
  head,
  listAllKeys,
  readText,
  removeTestBucket,
  S3_ENDPOINT,
  writeText,
  type ClientHooks,
} from './helpers.ts';

const DELETE_AFTER_MS = 60 * 60 * 1000;
const T0 = Date.parse('2026-11-21T00:00:00.000Z');

describeS3('S3 sink (radosgw)', () => {
  let client: S3Client;
  let bucket: string;
  let n = 0;

  const proxies: S3Proxy[] = [];
  beforeAll(async () => {
    client = createTestClient();
    bucket = await createTestBucket(client, 'sink');
  });
  afterAll(async () => {
    if (bucket) await removeTestBucket(client, bucket);
    await Promise.all(proxies.map((p) => p.close()));
  });

  /** A client whose every request passes a proxy that records it (or breaks it on demand). */
  async function observed(hooks: ClientHooks = {}) {
    const proxy = await startS3Proxy(S3_ENDPOINT);
    proxies.push(proxy);
    const log: S3Request[] = [];
    proxy.onRequest = (r) => void log.push(r);
    const c = createTestClient({ ...hooks, endpoint: proxy.url });
    return { client: c, proxy, log, objectGets: () => log.filter((r) => r.method === 'GET' && r.key !== '') };
  }

  /**
   * A sink on its own prefix and manifest, with a clock the test moves. Lists the bucket on every publish unless
   * `listEvery` says otherwise, so drift is caught at once.
   */
  function s3Harness(
    opts: {
      client?: S3Client;
      prefix?: string;
      listPageKeys?: number;
      listEvery?: number;
      windowDocs?: number;
      concurrency?: number;
    } = {},
  ) {
    const prefix = opts.prefix ?? `site-${++n}/`;
    const clock = { ms: T0 };
    const make = (c: S3Client) =>
      createS3Sink({
        client: c,
        bucket,
        prefix,
        manifestKey: `private/${prefix}manifest.json`,
        deleteAfterMs: DELETE_AFTER_MS,
        concurrency: opts.concurrency ?? 4,
        listEvery: opts.listEvery ?? 1,
        now: () => new Date(clock.ms),
        ...(opts.listPageKeys ? { listPageKeys: opts.listPageKeys } : {}),
        ...(opts.windowDocs ? { windowDocs: opts.windowDocs } : {}),
      });
    return {
      prefix,
      clock,
      make,
      sink: make(opts.client ?? client),
      read: (key: string) => readText(client, bucket, prefix + key),
      advance: (ms: number) => {
        clock.ms += ms;
      },
      deleteAfterMs: DELETE_AFTER_MS,
    };
  }

  /**
   * A client whose first PUT of the manifest waits for a rival sink to publish `build` completely: the
   * rival runs between this publish's manifest read and its manifest write.
   */
  function racedBy(h: ReturnType<typeof s3Harness>, build: OutputDocument[]) {
    const rival = h.make(client);
    let rivalDone: Promise<unknown> | null = null;
    const racing = createTestClient();
    racing.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: string };
        if (
          context.commandName === 'PutObjectCommand' &&
          input.Key === `private/${h.prefix}manifest.json` &&
          rivalDone === null
        ) {
          rivalDone = rival.publish(build);
          await rivalDone;
        }
        return next(args);
      },
      { step: 'initialize', name: 'rivalPublisher' },
    );
    return { client: racing, rivalDone: () => rivalDone };
  }

  sinkContract('S3 bucket', async () => s3Harness());

  it('stores Content-Type, Content-Language, Cache-Control and the body checksum on every object', async () => {
    const h = s3Harness();
    await h.sink.publish(sampleBuild(1));
    const de = await head(client, bucket, `${h.prefix}api/de/latest.json`);
    expect(de.ContentType).toBe('application/json; charset=utf-8');
    expect(de.ContentLanguage).toBe('de');
    expect(de.CacheControl).toBe('public, max-age=30');
    const deBody = sampleBuild(1).find((d) => d.key === 'api/de/latest.json')!.body;
    expect(de.Metadata?.sha256).toBe(createHash('sha256').update(deBody, 'utf8').digest('hex'));
    expect(await h.read('api/de/latest.json')).toBe(deBody);
    const schema = await head(client, bucket, `${h.prefix}api/openapi.json`);
    expect(schema.ContentLanguage).toBeUndefined();
    expect(schema.CacheControl).toBe('public, max-age=30');
  });

  it('re-uploads a document whose headers changed although its body did not', async () => {
    const h = s3Harness();
    await h.sink.publish(sampleBuild(1));
    const build = sampleBuild(1).map((d) => (d.key === 'api/de/latest.json' ? { ...d, contentLanguage: 'de-DE' } : d));
    expect(await h.sink.publish(build)).toMatchObject({ written: 1 });
    expect((await head(client, bucket, `${h.prefix}api/de/latest.json`)).ContentLanguage).toBe('de-DE');
  });

  it('re-uploads an object changed or deleted behind its back, found from the listing without downloading bodies', async () => {
    const o = await observed();
    const h = s3Harness({ client: o.client });
    await h.sink.publish(sampleBuild(1));
    await writeText(client, bucket, `${h.prefix}api/en/history.json`, 'tampered');
    o.log.length = 0;
    const report = await h.sink.publish(sampleBuild(1));
    expect(report).toMatchObject({ written: 1, unchanged: 6 });
    expect(await h.read('api/en/history.json')).toBe(sampleBuild(1)[3]!.body);
    // Only the manifest is downloaded; published objects are compared by listing.
    expect(o.objectGets().map((r) => r.key)).toEqual([`private/${h.prefix}manifest.json`]);
    expect(o.log.filter((r) => r.method === 'HEAD')).toHaveLength(0);
    expect(o.log.filter((r) => r.method === 'PUT').map((r) => r.key)).toEqual([
      `${h.prefix}api/en/history.json`,
      `private/${h.prefix}manifest.json`,
    ]);
    expect(report.requests).toBe(o.log.length);
  });

  it('with the build as a stream, lists the bucket while the build streams in and still repairs objects changed or deleted behind its back', async () => {
    const sent: string[] = [];
    const h = s3Harness({ client: createTestClient({ onSend: (c) => sent.push(c) }), listPageKeys: 2 });
    await h.sink.publish(stream(byPhase(sampleBuild(1))));
    await writeText(client, bucket, `${h.prefix}api/en/history.json`, 'tampered');
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: `${h.prefix}api/de/latest.json` }));
    sent.length = 0;
    // A new key too: uploaded because the manifest lacks it.
    const build = byPhase([...sampleBuild(1), doc('api/zz/new.json', { fresh: true }, PHASE.summaries)]);
    const report = await h.sink.publish(stream(build));
    expect(report).toMatchObject({ written: 3, unchanged: 5 });
    for (const d of build) expect(await h.read(d.key)).toBe(d.body);
    // The 6 objects left, in pages of 2.
    expect(sent.filter((c) => c === 'ListObjectsV2Command')).toHaveLength(3);
  });

  it('lists every page of the prefix, objects it never published included', async () => {
    const sent: string[] = [];
    const h = s3Harness({ client: createTestClient({ onSend: (c) => sent.push(c) }), listPageKeys: 2 });
    await h.sink.publish(sampleBuild(1));
    // Foreign objects make the listing longer; then two of ours change behind its back.
    for (const k of ['api/de/m-foreign-1.json', 'api/de/m-foreign-2.json', 'api/de/m-foreign-3.json'])
      await writeText(client, bucket, h.prefix + k, 'theirs');
    await writeText(client, bucket, `${h.prefix}api/en/events/r-2.json`, 'tampered');
    await writeText(client, bucket, `${h.prefix}api/openapi.json`, 'tampered');
    sent.length = 0;
    const report = await h.sink.publish(sampleBuild(1));
    expect(report).toMatchObject({ written: 2, unchanged: 5 });
    for (const d of sampleBuild(1)) expect(await h.read(d.key)).toBe(d.body);
    expect(await h.read('api/de/m-foreign-2.json')).toBe('theirs');
    // 7 keys of ours and 3 foreign in pages of 2.
    expect(sent.filter((c) => c === 'ListObjectsV2Command')).toHaveLength(5);
  });

  it('finishes every object of a lower phase before it starts a higher one', async () => {
    const o = await observed();
    const h = s3Harness({ client: o.client });
    const build = [
      ...sampleBuild(1),
      ...Array.from({ length: 12 }, (_, i) => doc(`api/en/events/x-${i}.json`, { i }, PHASE.leaves)),
    ].reverse();
    await h.sink.publish(build);
    const phaseOf = new Map(build.map((d) => [h.prefix + d.key, d.phase]));
    const puts = o.log.filter((r) => r.method === 'PUT').map((r) => r.key);
    const phases = puts.filter((k) => phaseOf.has(k)).map((k) => phaseOf.get(k)!);
    expect(phases).toHaveLength(build.length);
    expect(phases).toEqual([...phases].sort((a, b) => a - b));
  });

  it('keeps a dropped object for the whole delay and reports it pending, then deletes it', async () => {
    const h = s3Harness();
    await h.sink.publish(sampleBuild(1));
    const next = sampleBuild(1).filter((d) => d.key !== 'api/en/events/r-2.json');
    expect(await h.sink.publish(next)).toMatchObject({ deleted: 0, pendingDelete: 1 });
    h.advance(DELETE_AFTER_MS - 1);
    expect(await h.sink.publish(next)).toMatchObject({ deleted: 0, pendingDelete: 1 });
    expect(await h.read('api/en/events/r-2.json')).not.toBeNull();
    h.advance(1);
    expect(await h.sink.publish(next)).toMatchObject({ deleted: 1, pendingDelete: 0 });
    expect(await h.read('api/en/events/r-2.json')).toBeNull();
  });

  it('never touches objects it did not publish, inside or outside its prefix', async () => {
    const h = s3Harness();
    await writeText(client, bucket, `${h.prefix}api/hand-made.json`, 'x');
    await writeText(client, bucket, 'state/state.json', '{}');
    await h.sink.publish(sampleBuild(1));
    h.advance(DELETE_AFTER_MS * 2);
    await h.sink.publish(sampleBuild(1).slice(0, 2));
    h.advance(DELETE_AFTER_MS * 2);
    await h.sink.publish(sampleBuild(1).slice(0, 2));
    expect(await readText(client, bucket, `${h.prefix}api/hand-made.json`)).toBe('x');
    expect(await readText(client, bucket, 'state/state.json')).toBe('{}');
    const keys = await listAllKeys(client, bucket, h.prefix);
    expect(keys).toEqual([
      `${h.prefix}api/de/events/r-1.json`,
      `${h.prefix}api/en/events/r-1.json`,
      `${h.prefix}api/hand-made.json`,
    ]);
  });

  it('refuses a manifest key under the public prefix', () => {
    expect(() =>
      createS3Sink({ client, bucket, prefix: 'site/', manifestKey: 'site/manifest.json', now: () => new Date(T0) }),
    ).toThrow(/public prefix/);
    expect(() =>
      createS3Sink({ client, bucket, prefix: '', manifestKey: 'api/manifest.json', now: () => new Date(T0) }),
    ).toThrow(/public API root/);
  });

  it('leaves the previous API fully readable when a publish breaks halfway, and the next publish completes it', async () => {
    const h = s3Harness();
    const before = sampleBuild(1);
    await h.sink.publish(before);
    const after = [
      ...sampleBuild(5),
      ...Array.from({ length: 6 }, (_, i) => doc(`api/en/events/n-${i}.json`, { i }, PHASE.leaves)),
    ];

    // Every upload after the third gets a 503 (the test client makes one attempt), as if the S3 went away.
    const o = await observed();
    let puts = 0;
    o.proxy.arm({
      label: 'S3 gone after three uploads',
      fault: 'slow_down',
      match: (r) => r.method === 'PUT' && r.key.startsWith(h.prefix) && ++puts > 3,
      times: Number.MAX_SAFE_INTEGER,
    });
    const broken = h.make(o.client);
    await expect(broken.publish(after)).rejects.toThrow(
      /\[publish\/s3\] PUT s3:\/\/reset-sink-[0-9a-f]+\/site-\d+\/api\/.* -> 503 SlowDown/,
    );
    o.proxy.disarm();
    for (const d of before) expect(await h.read(d.key)).not.toBeNull();
    // Summaries still describe the old build: nothing of a higher phase was written after the failure.
    expect(await h.read('api/en/latest.json')).toBe(JSON.stringify({ rev: 1 }));

    const report = await h.sink.publish(after);
    expect(report.written).toBeGreaterThan(0);
    for (const d of after) expect(await h.read(d.key)).toBe(d.body);
    expect(await h.sink.publish(after)).toMatchObject({ written: 0, unchanged: after.length });
  });
  it('refuses to overwrite a manifest another publisher wrote after this publish read it (conditional PUT)', async () => {
    const h = s3Harness();
    await h.sink.publish(sampleBuild(1));
    const race = racedBy(h, sampleBuild(3));
    const ours = h.make(race.client);
    await expect(ours.publish(sampleBuild(2))).rejects.toThrow(ConflictError);
    await expect(ours.publish(sampleBuild(2))).resolves.toMatchObject({ target: expect.any(String) });
    expect(race.rivalDone()).not.toBeNull();
  });

  describe('the stored manifest (one object)', () => {
    const manifestKey = (h: { prefix: string }) => `private/${h.prefix}manifest.json`;

    it('is one private object, replaced on every publish and nothing else private is written', async () => {
      const h = s3Harness();
      await h.sink.publish(sampleBuild(1));
      const first = await readText(client, bucket, manifestKey(h));
      h.advance(60_000);
      await h.sink.publish(sampleBuild(2));
      expect(await readText(client, bucket, manifestKey(h))).not.toBe(first);
      expect(await listAllKeys(client, bucket, `private/${h.prefix}`)).toEqual([manifestKey(h)]);
    });

    it.each([
      [
        'missing',
        async (key: string) => void (await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))),
      ],
      ['overwritten with garbage', (key: string) => writeText(client, bucket, key, 'not json')],
      [
        'of an older format',
        (key: string) =>
          writeText(client, bucket, key, JSON.stringify({ version: 2, base: null, journal: {}, missingSince: {} })),
      ],
    ])(
      'when %s, is recovered from a listing: only what differs from the listed objects is uploaded, nothing deleted',
      async (_, spoil) => {
        const o = await observed();
        const h = s3Harness({ client: o.client, listEvery: 100 });
        await writeText(client, bucket, `${h.prefix}api/en/hand-made.json`, 'theirs');
        await h.sink.publish(sampleBuild(1));
        await spoil(manifestKey(h));
        await writeText(client, bucket, `${h.prefix}api/en/history.json`, 'tampered');
        h.advance(2 * DELETE_AFTER_MS);
        o.log.length = 0;
        const build = sampleBuild(1).filter((d) => d.key !== 'api/en/events/r-2.json');
        expect(await h.sink.publish(build)).toMatchObject({ written: 1, unchanged: build.length - 1, deleted: 0 });
        expect(o.log.filter((r) => r.key === '' && r.method === 'GET')).toHaveLength(1);
        expect(o.log.filter((r) => r.method === 'PUT').map((r) => r.key)).toEqual([
          `${h.prefix}api/en/history.json`,
          manifestKey(h),
        ]);
        for (const d of build) expect(await h.read(d.key)).toBe(d.body);
        // What the lost manifest knew is lost: the dropped object stays, as does the one it never published.
        expect(await h.read('api/en/events/r-2.json')).not.toBeNull();
        expect(await h.read('api/en/hand-made.json')).toBe('theirs');
        // The recovered manifest holds again: the next publish trusts it (no listing) and finds everything in place.
        o.log.length = 0;
        expect(await h.sink.publish(build)).toMatchObject({ written: 0, unchanged: build.length });
        expect(o.log.map((r) => `${r.method} ${r.key}`)).toEqual([`GET ${manifestKey(h)}`, `PUT ${manifestKey(h)}`]);
      },
    );

    it('refuses a concurrent publisher that wrote the manifest after this publish read it, and the next publish repairs whatever the race left', async () => {
      const h = s3Harness({ listEvery: 100 });
      await h.sink.publish(sampleBuild(3));
      const race = racedBy(h, sampleBuild(6));
      await expect(h.make(race.client).publish(sampleBuild(5))).rejects.toThrow(ConflictError);
      expect(race.rivalDone()).not.toBeNull();
      const build = sampleBuild(5);
      await h.sink.publish(build);
      for (const d of build) expect(await h.read(d.key)).toBe(d.body);
      expect(await h.sink.publish(build)).toMatchObject({ written: 0, unchanged: build.length });
    });

    it('writes a new manifest only if none exists (If-None-Match), so a rival that created one first wins', async () => {
      const h = s3Harness();
      const race = racedBy(h, sampleBuild(2));
      await expect(h.make(race.client).publish(sampleBuild(1))).rejects.toThrow(
        /another publisher changed the manifest/,
      );
      expect(race.rivalDone()).not.toBeNull();
      expect(await h.sink.publish(sampleBuild(2))).toMatchObject({ written: 0 });
    });
  });

  it('trusts the manifest on idle ticks: only the manifest GET and PUT, no listing, until the cadence lists again', async () => {
    const o = await observed();
    const h = s3Harness({ client: o.client, listEvery: 3 });
    await h.sink.publish(sampleBuild(1)); // the first publish lists (no listing recorded yet)
    await writeText(client, bucket, `${h.prefix}api/en/history.json`, 'tampered');
    const ticks: string[][] = [];
    for (let i = 0; i < 3; i++) {
      o.log.length = 0;
      h.advance(15 * 60 * 1000);
      const report = await h.sink.publish(sampleBuild(1));
      // A request for the bucket itself (no key) is a listing here.
      ticks.push(o.log.map((r) => (r.key === '' ? `LIST ${r.method}` : `${r.method} ${r.key}`)));
      expect(report.requests).toBe(o.log.length);
    }
    // Ticks 1 and 2 trust the manifest (the drift is not seen yet); tick 3 lists and repairs it.
    const manifest = `private/${h.prefix}manifest.json`;
    expect(ticks[0]).toEqual([`GET ${manifest}`, `PUT ${manifest}`]);
    expect(ticks[1]).toEqual([`GET ${manifest}`, `PUT ${manifest}`]);
    expect(ticks[2]!.filter((c) => c === 'LIST GET').length).toBeGreaterThan(0);
    expect(ticks[2]).toContain(`PUT ${h.prefix}api/en/history.json`);
    expect(await h.read('api/en/history.json')).toBe(sampleBuild(1)[3]!.body);
  });

  it('lists when the last listing is older than DEFAULT_LIST_MAX_AGE_MS, whatever the tick count', async () => {
    const sent: string[] = [];
    const h = s3Harness({ client: createTestClient({ onSend: (c) => sent.push(c) }), listEvery: 100 });
    await h.sink.publish(sampleBuild(1));
    sent.length = 0;
    h.advance(DEFAULT_LIST_MAX_AGE_MS - 60 * 1000);
    await h.sink.publish(sampleBuild(1));
    expect(sent).not.toContain('ListObjectsV2Command');
    h.advance(60 * 1000);
    await h.sink.publish(sampleBuild(1));
    expect(sent).toContain('ListObjectsV2Command');
  });

  it('holds a bounded window of bodies however long the stream (2,000 small documents and three of 1 MiB), each phase in place before the next goes on', async () => {
    const W = 32;
    // Fewer than the local sink's 5,000: radosgw takes about 6 ms a PUT here, and the bound is the same at 2,000.
    const EVENTS = 2_000;
    let landed = 0;
    const o = await observed();
    // Counted when S3 has sent a whole answer, which the sink reads a moment later: at most `concurrency` (8)
    // answers early, so the check below still catches the window overrun by more than that.
    o.proxy.onAnswered = (r) => void (r.method === 'PUT' && r.key.startsWith(h.prefix) && landed++);
    const h = s3Harness({ client: o.client, windowDocs: W, concurrency: 8 });
    let maxAhead = 0;
    let phase0InPlace: number | null = null;
    async function* build() {
      let i = 0;
      const ahead = () => {
        // Asked for document i, the sink holds i - (PUTs answered) documents besides it, at most.
        maxAhead = Math.max(maxAhead, i - landed);
        if (i - landed >= W)
          throw new Error(`the sink took ${i} documents with ${landed} uploaded: more than ${W} held at once`);
      };
      for (let e = 0; e < EVENTS; e++, i++) {
        ahead();
        const body = e % 700 === 3 ? String(e).padEnd(1 << 20, 'x') : JSON.stringify({ id: e, text: 'y'.repeat(200) });
        yield { ...doc(`api/${['en', 'de', 'ko', 'ja', 'zh'][e % 5]!}/events/e-${e}.json`, null, PHASE.leaves), body };
      }
      for (let p = 0; p < 10; p++, i++) {
        if (p === 1)
          phase0InPlace = (await listAllKeys(client, bucket, `${h.prefix}api/`)).filter((k) =>
            k.includes('/events/'),
          ).length;
        ahead();
        yield doc(`api/en/history/p-${p}.json`, { page: p }, PHASE.lists);
      }
      yield doc('api/en/latest.json', { events: EVENTS }, PHASE.summaries);
    }
    const report = await h.sink.publish(build());
    expect(report).toMatchObject({ written: EVENTS + 11, unchanged: 0 });
    expect(maxAhead).toBeLessThan(W);
    // Asked for the second history page, the sink had every event object uploaded.
    expect(phase0InPlace).toBe(EVENTS);
  }, 180_000);

  /** A stream of build 2 with `bad` where its first list (phase 1) document would be. */
  async function* interrupted(bad: () => OutputDocument) {
    const next = byPhase(sampleBuild(2));
    for (const d of next) {
      if (d.phase === PHASE.lists) yield bad();
      yield d;
    }
  }

  it.each([
    [
      'a stream that throws',
      {
        bad: (): OutputDocument => {
          throw new Error('render failed');
        },
        error: /render failed/,
      },
    ],
    ['an unsafe key', { bad: () => doc('api/../escape.json', {}, PHASE.lists), error: /unsafe object key/ }],
    [
      'a second document for a key',
      {
        bad: () => doc('api/en/events/r-1.json', { again: true }, PHASE.lists),
        error: /two documents for root-\d+\/api\/en\/events\/r-1\.json/,
      },
    ],
    [
      'the manifest key',
      {
        bad: () => doc('private/root-manifest.json', {}, PHASE.lists),
        error: /would overwrite the manifest private\/root-manifest\.json/,
      },
    ],
  ])(
    'stops at %s mid-stream: the publish fails, that document and the rest unwritten, the previous manifest intact, and the next publish repairs',
    async (_, { bad, error }) => {
      // Prefix '' so that a document key can name the manifest, which lies outside the API root.
      const root = `root-${++n}/`;
      const make = () =>
        createS3Sink({
          client,
          bucket,
          prefix: '',
          manifestKey: 'private/root-manifest.json',
          deleteAfterMs: 0,
          listEvery: 1,
          now: () => new Date(T0),
        });
      // Keys under their own root, as if the prefix were `root`, so runs of this test do not meet.
      const under = (d: OutputDocument) => ({ ...d, key: root + d.key });
      const read = (key: string) => readText(client, bucket, root + key);
      const manifestBefore = async () => readText(client, bucket, 'private/root-manifest.json');
      await make().publish(sampleBuild(1).map(under));
      const before = await manifestBefore();
      const rooted = async function* () {
        for await (const d of interrupted(bad)) yield d.key === 'private/root-manifest.json' ? d : under(d);
      };
      await expect(make().publish(rooted())).rejects.toThrow(error);
      expect(await manifestBefore()).toBe(before);
      // Phase 0 (the new event) is in, nothing of phase 1 or later; r-2, dropped by build 2, is not deleted.
      expect(await read('api/en/events/r-3.json')).not.toBeNull();
      expect(await read('api/en/events/r-1.json')).toBe(sampleBuild(1)[0]!.body);
      for (const d of sampleBuild(1).filter((x) => x.phase >= PHASE.lists)) expect(await read(d.key)).toBe(d.body);
      expect(await read('api/en/events/r-2.json')).not.toBeNull();
      const repaired = await make().publish(byPhase(sampleBuild(2)).map(under));
      expect(repaired.written).toBeGreaterThan(0);
      for (const d of sampleBuild(2)) expect(await read(d.key)).toBe(d.body);
      expect(await read('api/en/events/r-2.json')).toBeNull();
      expect(await manifestBefore()).not.toBe(before);
      await removeRoot(root);
    },
  );

  async function removeRoot(root: string) {
    for (const key of await listAllKeys(client, bucket, root))
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'private/root-manifest.json' }));
  }
});
