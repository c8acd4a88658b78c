// Sink into a local directory (dist/): writes only changed files, in phase order, and removes files the build dropped.
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../state/local-store.ts';
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

export function createLocalSink(dir: string): Sink {
  return {
    name: `local:${dir}`,
    async publish(docs: readonly OutputDocument[]): Promise<PublishReport> {
      const report: PublishReport = { target: this.name, written: 0, unchanged: 0, deleted: 0, pendingDelete: 0, requests: 0 };
      const sorted = [...docs].sort((a, b) => a.phase - b.phase);
      for (const d of sorted) {
        assertSafeKey(d.key);
        const file = path.join(dir, d.key);
        let current: string | null = null;
        try {
          current = await readFile(file, 'utf8');
        } catch {
          current = null;
        }
        if (current === d.body) {
          report.unchanged++;
          continue;
        }
        await writeFileAtomic(file, d.body);
        report.written++;
      }
      const keep = new Set(docs.map((d) => d.key));
      for (const f of await listFiles(dir)) {
        if (!keep.has(f)) {
          await rm(path.join(dir, f), { force: true });
          report.deleted++;
        }
      }
      return report;
    },
  };
}
