// Sink in memory: the same contract as the local and S3 sinks, for tests and dry runs. It follows the S3 sink's plan
// (s3-plan.ts) with the stored map as its listing, so dropped objects stay for the delay as they do on S3.
import { DataError } from '../errors.ts';
import { assertSafeKey } from '../fsutil/safe-key.ts';
import type { OutputDocument } from '../render/output.ts';
import { emptyManifest, fingerprint, headersOf, nextManifest, planPublish, sha256, type DesiredDocument } from './s3-plan.ts';
import type { PublishOptions, PublishReport, Sink } from './sink.ts';

export interface StoredObject {
  body: string;
  contentType: string;
  contentLanguage: string | null;
  cacheControl: string;
}

export interface MemorySink extends Sink {
  /** What is published, by key. */
  readonly objects: ReadonlyMap<string, StoredObject>;
}

export function createMemorySink(opts: { now: () => Date; deleteAfterMs?: number }): MemorySink {
  const objects = new Map<string, StoredObject>();
  let manifest = emptyManifest();
  let etags = 0;
  return {
    name: 'memory',
    objects,
    async publish(docs: readonly OutputDocument[], publishOpts: PublishOptions = {}): Promise<PublishReport> {
      const asOf = opts.now();
      const seen = new Set<string>();
      const desired: DesiredDocument[] = docs.map((d) => {
        assertSafeKey(d.key, 'publish/memory');
        if (seen.has(d.key)) throw new DataError('publish/memory', `the build has two documents for ${d.key}`);
        seen.add(d.key);
        const bodySha256 = sha256(d.body);
        return { doc: d, bodySha256, fingerprint: fingerprint(bodySha256, d) };
      });
      const listing = new Map([...objects.keys()].map((k) => [k, manifest.objects[k]?.etag ?? '']));
      const plan = planPublish({ desired, manifest, listing, asOf, deleteAfterMs: opts.deleteAfterMs ?? 0 });
      const uploaded: Record<string, string> = {};
      for (const phase of [...new Set(plan.upload.map((u) => u.doc.phase))].sort((a, b) => a - b)) {
        await publishOpts.beforePhase?.(`phase ${phase}`);
        for (const { doc } of plan.upload.filter((u) => u.doc.phase === phase)) {
          objects.set(doc.key, { body: doc.body, ...headersOf(doc) });
          uploaded[doc.key] = `m${++etags}`;
        }
      }
      await publishOpts.beforePhase?.('deletes');
      for (const key of plan.remove) objects.delete(key);
      manifest = nextManifest(manifest, plan, uploaded, true, asOf);
      const pendingDelete = Object.keys(plan.pending).length;
      return { target: 'memory', written: plan.upload.length, unchanged: plan.unchanged.length, deleted: plan.remove.length, pendingDelete, requests: 0 };
    },
  };
}
