// The local sink: the shared Sink contract, and beyond it how it writes into a directory that
// readers (the preview server) and `aws s3 sync` look at while and after it publishes.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EDGE_STORE_FILE } from '../../builder/contract.ts';
import { createLocalSink, STAGING_PREFIX } from '../../builder/publish/local-sink.ts';
import { PHASE } from '../../builder/render/output.ts';
import { doc, sampleBuild, sinkContract } from './sink.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'rsa-local-sink-'));
  dirs.push(d);
  return d;
}

/** Every file under `root`, relative, sorted. */
async function tree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

sinkContract('local directory', async () => {
  const dir = await tmp();
  return {
    sink: createLocalSink(dir),
    read: async (key) => readFile(path.join(dir, key), 'utf8').catch(() => null),
    advance: () => {},
    deleteAfterMs: 0,
  };
});

const OLD = new Date('2020-01-01T00:00:00Z');

describe('local sink', () => {
  it('publishes into a directory that does not exist yet, leaving nothing but the documents', async () => {
    const dir = path.join(await tmp(), 'dist', 'nested');
    const build = sampleBuild(1);
    const report = await createLocalSink(dir).publish(build);
    expect(report).toMatchObject({ written: build.length, unchanged: 0, deleted: 0 });
    expect(await tree(dir)).toEqual(build.map((d) => d.key).sort());
    for (const d of build) expect(await readFile(path.join(dir, d.key), 'utf8')).toBe(d.body);
  });

  it('leaves unchanged files untouched (same mtime) and rewrites only changed ones', async () => {
    const dir = await tmp();
    const sink = createLocalSink(dir);
    await sink.publish(sampleBuild(1));
    for (const d of sampleBuild(1)) await utimes(path.join(dir, d.key), OLD, OLD);
    const report = await sink.publish(sampleBuild(1, { latestRev: 2 }));
    expect(report).toMatchObject({ written: 2, unchanged: sampleBuild(1).length - 2 });
    for (const d of sampleBuild(1)) {
      const { mtimeMs } = await stat(path.join(dir, d.key));
      if (d.key.endsWith('latest.json')) expect(mtimeMs).toBeGreaterThan(OLD.getTime());
      else expect(mtimeMs).toBe(OLD.getTime());
    }
  });

  it('notices a file changed or removed behind its back, and writes it again', async () => {
    const dir = await tmp();
    const sink = createLocalSink(dir);
    const build = sampleBuild(1);
    await sink.publish(build);
    await writeFile(path.join(dir, 'api/en/history.json'), '{"tampered":true}');
    // Same length as the real body: a size check alone would miss it.
    const latest = build.find((d) => d.key === 'api/de/latest.json')!;
    await writeFile(path.join(dir, latest.key), latest.body.replace('1', '9'));
    await rm(path.join(dir, 'api/openapi.json'));
    const report = await sink.publish(build);
    expect(report).toMatchObject({ written: 3, unchanged: build.length - 3, deleted: 0 });
    for (const d of build) expect(await readFile(path.join(dir, d.key), 'utf8')).toBe(d.body);
  });

  it('never shows a reader a new directory half-filled, nor a later phase before an earlier one is complete', async () => {
    const dir = await tmp();
    const n = 400;
    const leaves = Array.from({ length: n }, (_, i) =>
      doc(`api/en/events/e-${i}.json`, { id: i, pad: 'x'.repeat(2000) }, PHASE.leaves),
    );
    const build = [
      ...leaves,
      doc('api/en/history.json', { count: n }, PHASE.lists),
      doc('api/index.json', { ok: true }, PHASE.summaries),
    ];
    let done = false;
    const publishing = createLocalSink(dir)
      .publish(build)
      .finally(() => (done = true));
    let seen = 0;
    while (!done) {
      // Later phases are looked at first: whatever was there then must be complete below it a moment later.
      const summary = await readFile(path.join(dir, 'api/index.json'), 'utf8').catch(() => null);
      const lists = await readFile(path.join(dir, 'api/en/history.json'), 'utf8').catch(() => null);
      const events = await readdir(path.join(dir, 'api/en/events')).catch(() => null);
      if (events !== null) {
        expect(events.length).toBe(n);
        const one = leaves[seen++ % n]!;
        expect(await readFile(path.join(dir, one.key), 'utf8')).toBe(one.body);
      }
      if (lists !== null) expect(lists).toBe(build[n]!.body);
      if (lists !== null) expect(events?.length).toBe(n);
      if (summary !== null) expect(lists).toBe(build[n]!.body);
    }
    expect((await publishing).written).toBe(build.length);
    expect(await tree(dir)).toEqual(build.map((d) => d.key).sort());
  });

  it('stages new directories under their topmost new one, which appears whole once its phase has ended', async () => {
    const dir = await tmp();
    const sink = createLocalSink(dir);
    await sink.publish([doc('api/en/latest.json', {}, PHASE.summaries)]);
    const seen: string[][] = [];
    async function* build() {
      yield doc('api/en/events/a.json', {}, PHASE.leaves);
      yield doc('api/de/events/a.json', {}, PHASE.leaves);
      yield doc('api/en/new.json', {}, PHASE.leaves);
      // The leaves phase is not over yet: of its new directories nothing is visible, the new file in api/en may be.
      seen.push(await readdir(path.join(dir, 'api')));
      yield doc('api/de/events/b.json', {}, PHASE.lists);
      seen.push(await readdir(path.join(dir, 'api')));
      yield doc('api/en/latest.json', {}, PHASE.summaries);
    }
    await sink.publish(build());
    expect(seen.map((names) => names.sort())).toEqual([['en'], ['de', 'en']]);
    expect(await tree(dir)).toEqual([
      'api/de/events/a.json',
      'api/de/events/b.json',
      'api/en/events/a.json',
      'api/en/latest.json',
      'api/en/new.json',
    ]);
  });

  it('removes what the build dropped, but never the edge store file next to it', async () => {
    const dir = await tmp();
    const sink = createLocalSink(dir);
    await sink.publish(sampleBuild(1));
    await writeFile(path.join(dir, EDGE_STORE_FILE), '{}');
    const report = await sink.publish(sampleBuild(1).filter((d) => d.key !== 'api/openapi.json'));
    expect(report.deleted).toBe(1);
    expect(await tree(dir)).toContain(EDGE_STORE_FILE);
    expect(await tree(dir)).not.toContain('api/openapi.json');
  });

  it('fails with the key and the cause, keeps the earlier phases, writes no later one and leaves no staging behind', async () => {
    const dir = await tmp();
    const build = [
      doc('api/en/events/r-1.json', { id: 'r-1' }, PHASE.leaves),
      // A file cannot also be a directory: the next phase's new directory cannot be moved into place.
      doc('api/en/history.json', { items: [] }, PHASE.leaves),
      doc('api/en/history.json/all.json', { items: [] }, PHASE.lists),
      doc('api/en/latest.json', { rev: 1 }, PHASE.summaries),
    ];
    await expect(createLocalSink(dir).publish(build)).rejects.toThrow(
      /api\/en\/history\.json.*(ENOTDIR|EEXIST|not a directory)/,
    );
    expect(await tree(dir)).toEqual(['api/en/events/r-1.json', 'api/en/history.json']);
    expect((await readdir(dir)).filter((e) => e.startsWith(STAGING_PREFIX))).toEqual([]);
  });

  it('fails a phase as a whole for new directories: none of them appears when one of its files cannot be written', async () => {
    const dir = await tmp();
    const sink = createLocalSink(dir);
    // A directory where the next build wants a file: replacing it fails.
    await sink.publish([doc('api/x.json/inner.json', {}, PHASE.leaves)]);
    const build = [doc('api/new/a.json', { a: 1 }, PHASE.leaves), doc('api/x.json', {}, PHASE.leaves)];
    await expect(sink.publish(build)).rejects.toThrow(/could not write api\/x\.json/);
    expect(await readdir(path.join(dir, 'api'))).not.toContain('new');
    expect((await readdir(dir)).filter((e) => e.startsWith(STAGING_PREFIX))).toEqual([]);
  });

  it('holds a bounded window of bodies however long the stream (5,000 small documents and four of 1 MiB), each phase in place before the next goes on', async () => {
    const dir = await tmp();
    const W = 64;
    const EVENTS = 5_000;
    /** Files under the directory, the staging area's included: each finished document is one, ahead of the sink's count. */
    const onDisk = async () =>
      (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).length;
    let maxAhead = 0;
    let phase0InPlace: number | null = null;
    async function* build() {
      let i = 0;
      const ahead = async () => {
        const files = await onDisk();
        maxAhead = Math.max(maxAhead, i - files);
        if (i - files >= W)
          throw new Error(`the sink took ${i} documents with ${files} written: more than ${W} held at once`);
      };
      for (let e = 0; e < EVENTS; e++, i++) {
        if (i % 50 === 0) await ahead();
        const lang = ['en', 'de', 'ko', 'ja', 'zh'][e % 5]!;
        // A fresh 1 MiB string each time: the sink holds it only until it is written.
        const body =
          e % 1_250 === 7 ? String(e).padEnd(1 << 20, 'x') : JSON.stringify({ id: e, text: 'y'.repeat(200) });
        yield { ...doc(`api/${lang}/events/e-${e}.json`, null, PHASE.leaves), body };
      }
      for (let p = 0; p < 20; p++, i++) {
        if (p === 1)
          phase0InPlace = (await readdir(path.join(dir, 'api'), { recursive: true, withFileTypes: true })).filter((e) =>
            e.isFile(),
          ).length;
        await ahead();
        yield doc(`api/en/history/p-${p}.json`, { page: p }, PHASE.lists);
      }
      yield doc('api/en/latest.json', { events: EVENTS }, PHASE.summaries);
    }
    const report = await createLocalSink(dir, { windowDocs: W }).publish(build());
    expect(report).toMatchObject({ written: EVENTS + 21, unchanged: 0 });
    expect(maxAhead).toBeLessThan(W);
    // Asked for the second history page, the sink had renamed every event file into place.
    expect(phase0InPlace).toBe(EVENTS);
    expect((await readdir(dir)).sort()).toEqual(['api']);
  });

  it('removes what a crashed publish left in its staging area without counting it, and refuses keys inside it', async () => {
    const dir = await tmp();
    const stale = path.join(dir, `${STAGING_PREFIX}1-dead`, '0', 'api', 'en');
    await mkdir(stale, { recursive: true });
    await writeFile(path.join(stale, 'half.json'), '{"half":');
    const sink = createLocalSink(dir);
    const report = await sink.publish(sampleBuild(1));
    expect(report).toMatchObject({ written: sampleBuild(1).length, deleted: 0 });
    expect(await readdir(dir)).toEqual(['api']);
    await expect(sink.publish([doc(`${STAGING_PREFIX}x/a.json`, {}, PHASE.leaves)])).rejects.toThrow(/staging area/);
  });
});
