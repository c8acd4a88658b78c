// One error vocabulary: the type of what a run throws decides the exit code, whichever module threw it.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BuilderError,
  ConfigError,
  ConflictError,
  DataError,
  EXIT,
  SourceError,
  StorageError,
  exitCodeFor,
} from '../builder/errors.ts';
import { main, runMain, type Io } from '../builder/main.ts';
import { createLocalSink } from '../builder/publish/local-sink.ts';
import { run } from '../builder/run.ts';
import { main as backupMain } from '../schedules/backup.ts';
import { createLocalStateStore } from '../builder/state/local-store.ts';

function captureIo(): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    now: () => new Date('2026-11-21T12:00:00Z'),
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    lines,
    errors,
  };
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('errors', () => {
  it('say where they happened and keep their cause', () => {
    const cause = new Error('EACCES');
    const e = new StorageError('publish/local', 'could not write x', { cause });
    expect(e).toBeInstanceOf(BuilderError);
    expect(e.message).toBe('[publish/local] could not write x');
    expect(e.cause).toBe(cause);
    expect(e.name).toBe('StorageError');
  });

  it.each([
    [new ConfigError('build', 'x'), EXIT.config, 2],
    [new DataError('sources/archive', 'x'), EXIT.failed, 1],
    [new SourceError('sources/index', 'x'), EXIT.failed, 1],
    [new ConflictError('state/s3', 'x'), EXIT.conflict, 3],
    [new StorageError('publish/s3', 'x'), EXIT.storage, 4],
    [new Error('a bug'), EXIT.failed, 1],
    ['a thrown string', EXIT.failed, 1],
  ])('maps %s to exit code %i', async (err, code, literal) => {
    expect(code).toBe(literal);
    expect(exitCodeFor(err)).toBe(code);
    const io = captureIo();
    expect(await runMain('test', io, async () => Promise.reject(err))).toBe(code);
    expect(io.errors.join('\n')).toContain(err instanceof Error ? err.message : String(err));
  });
});

describe('backup entry point', () => {
  it('exits 2 with the usage on a bad command line, before it needs a bucket', async () => {
    for (const argv of [
      [],
      ['list', 'x'],
      ['verify'],
      ['create', 'a', 'b'],

      ['restore', 'id', '--bogus'],
      ['restore', 'id', '--data-dir'],
    ]) {
      const io = captureIo();
      expect(await backupMain(argv, {}, io), argv.join(' ')).toBe(2);
      expect(io.errors.join('\n'), argv.join(' ')).toMatch(/usage: tsx schedules\/backup\.ts/);
    }
    const io = captureIo();
    expect(await backupMain(['restore', 'id', '--data-dir', 'elsewhere'], {}, io)).toBe(2);
    expect(io.errors.join('\n')).toMatch(/RESET_S3_BUCKET is not set/);
  });
});

describe('build entry point', () => {
  it('exits 2 on a bad argument, reading the target default from the env it is given', async () => {
    const io = captureIo();
    expect(await main(['--target', 'ftp'], {}, io)).toBe(2);
    expect(io.errors.join('\n')).toMatch(/--target is local or s3/);
    expect(await main(['--now', 'yesterday'], {}, captureIo())).toBe(2);
    // Without a zone the instant would be the machine's local time.
    const zoneless = captureIo();
    expect(await main(['--now', '2026-11-21T12:00:00'], {}, zoneless)).toBe(2);
    expect(zoneless.errors.join('\n')).toMatch(/with a zone/);
    expect(await main(['--bogus'], {}, captureIo())).toBe(2);
    // RESET_TARGET comes from the env argument, never from process.env: s3 without a bucket is a configuration error.
    const s3 = captureIo();
    expect(await main([], { RESET_TARGET: 's3', RESET_PUBLIC_BASE_URL: 'https://api.example.org' }, s3)).toBe(2);
    expect(s3.errors.join('\n')).toMatch(/RESET_S3_BUCKET is not set/);
  });

  it('exits 1 on curated data that does not validate, and publishes nothing', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rsa-errors-'));
    dirs.push(root);
    await mkdir(path.join(root, 'data', 'verified'), { recursive: true });
    await writeFile(path.join(root, 'data', 'verified', 'bad.json'), '{"id": "x"}');
    const io = captureIo();
    const argv = [
      '--data-dir',
      path.join(root, 'data'),
      '--out',
      path.join(root, 'dist'),
      '--state-dir',
      path.join(root, 'state'),
      '--now',
      '2026-11-21T12:00:00Z',
    ];
    const env = {
      RESET_STATUS_PAGE_URL: '',
      RESET_UPSTREAM_URL: '',
      RESET_TIMELINE_URL: '',
      RESET_POST_EMBED_URL: '',
      RESET_SIGNAL_FEEDS: '',
    };
    expect(await main(argv, env, io)).toBe(1);
    expect(io.errors.join('\n')).toMatch(/\[sources\/archive\] invalid curated data/);
  });

  it('reads data/ while the lock is taken: a run without the lock skips even on invalid data, one with it fails and frees it', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rsa-errors-'));
    dirs.push(root);
    await mkdir(path.join(root, 'data', 'verified'), { recursive: true });
    await writeFile(path.join(root, 'data', 'verified', 'bad.json'), '{"id": "x"}');
    const asOf = new Date('2026-11-21T12:00:00Z');
    const store = createLocalStateStore(path.join(root, 'state'), { now: () => new Date() });
    const fetched: string[] = [];
    const deps = {
      now: () => asOf,
      fetcher: {
        get: async (url: string) => (
          fetched.push(url),
          { ok: false as const, status: null, latencyMs: 0, url, detail: { code: 'timeout', params: {} }, error: 'x' }
        ),
      },
      sources: [],
      store,
      sink: createLocalSink(path.join(root, 'dist')),
      dataDir: path.join(root, 'data'),
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const other = await store.acquireLock('other-run', 60_000, asOf);
      expect(other).not.toBeNull();
      expect((await run(deps)).skipped).toBe(true);
      // The dropped read of data/ has failed by now; its rejection must not surface.
      await new Promise((r) => setTimeout(r, 100));
      expect(unhandled).toEqual([]);
      await store.releaseLock(other!);
      await expect(run(deps)).rejects.toThrow(/invalid curated data/);
      const next = await store.acquireLock('next-run', 60_000, asOf);
      expect(next, 'the failed run released its lock').not.toBeNull();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
