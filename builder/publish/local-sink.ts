// Sink into a local directory (dist/): writes only changed files, in phase order, and removes files the build dropped.
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import { replaceFile } from '../state/local-store.ts';
import type { OutputDocument, PublishReport, Sink } from './sink.ts';

async function listFiles(root: string, rel = ''): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(path.join(root, rel), { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: string[] = [];
  for (const e of entries) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listFiles(root, r)));
    else out.push(r);
  }
  return out;
}

export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(key) || key.split('/').some((p) => p === '..' || p === '.')) {
    throw new Error(`[publish] refusing unsafe object key ${JSON.stringify(key)}`);
  }
}

/**
 * Files of one phase are written this many at a time: one after another, a 10,000-event build (50,000 files)
 * spent most of its publish waiting on the filesystem, each file being a read, a write and a rename.
 */
export const WRITE_CONCURRENCY = 16;

export function createLocalSink(dir: string): Sink {
  return {
    name: `local:${dir}`,
    async publish(docs: readonly OutputDocument[]): Promise<PublishReport> {
      const report: PublishReport = { target: this.name, written: 0, unchanged: 0, deleted: 0, pendingDelete: 0, requests: 0 };
      // Every key is checked before anything is written, so a bad build cannot leave half of itself behind.
      for (const d of docs) assertSafeKey(d.key);
      const limit = pLimit(WRITE_CONCURRENCY);
      // One listing up front: new files need no read to compare, and each directory is created once, not per file.
      const existing = new Set(await listFiles(dir));
      const dirs = new Map<string, Promise<unknown>>();
      const ensureDir = (d: string) => {
        let made = dirs.get(d);
        if (made === undefined) dirs.set(d, (made = mkdir(d, { recursive: true })));
        return made;
      };
      for (const phase of [...new Set(docs.map((d) => d.phase))].sort((a, b) => a - b)) {
        // Phases still complete one after another; only files of the same phase overlap.
        await Promise.all(
          docs
            .filter((d) => d.phase === phase)
            .map((d) =>
              limit(async () => {
                const file = path.join(dir, d.key);
                let current: string | null = null;
                if (existing.has(d.key)) {
                  try {
                    current = await readFile(file, 'utf8');
                  } catch {
                    current = null;
                  }
                }
                if (current === d.body) {
                  report.unchanged++;
                  return;
                }
                await ensureDir(path.dirname(file));
                await replaceFile(file, d.body);
                report.written++;
              }),
            ),
        );
      }
      const keep = new Set(docs.map((d) => d.key));
      await Promise.all(
        [...existing]
          .filter((f) => !keep.has(f))
          .map((f) =>
            limit(async () => {
              await rm(path.join(dir, f), { force: true });
              report.deleted++;
            }),
          ),
      );
      return report;
    },
  };
}
