// Sink in memory: the same contract as the local and S3 sinks, for tests. It follows the S3 sink's plan
// (s3-plan.ts) with the stored map as its listing, so dropped objects stay for the delay as they do on S3. It takes the
// build as a stream like the others, writing each document as it comes (keeping bodies is its job).
import {
  bodyDigest,
  bodyMd5,
  createPublishLedger,
  emptyManifest,
  fingerprint,
  headersOf,
} from '../../builder/publish/s3-plan.ts';
import type { DocumentStream, PublishOptions, PublishReport, Sink } from '../../builder/publish/sink.ts';
import { consumeInPhases } from '../../builder/publish/stream.ts';

const WHERE = 'publish/memory';

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
  const etagOf = new Map<string, string>();
  let etags = 0;
  return {
    name: 'memory',
    objects,
    async publish(docs: DocumentStream, publishOpts: PublishOptions = {}): Promise<PublishReport> {
      const asOf = opts.now();
      const report = { target: 'memory', written: 0, unchanged: 0, deleted: 0, pendingDelete: 0, requests: 0 };
      // What it holds is its listing, taken before the build streams in like the S3 sink's: an object written by a
      // publish that failed before its manifest is then caught by its ETag, as on S3.
      const listing = new Map(etagOf);
      const ledger = createPublishLedger(manifest);
      let phase: number | null = null;
      const built = await consumeInPhases(
        docs,
        WHERE,
        { concurrency: 1 },
        {
          write: async (doc) => {
            const print = fingerprint(bodyDigest(doc.body), doc);
            if (ledger.keep(doc.key, print, listing, () => bodyMd5(doc.body))) return void report.unchanged++;
            if (doc.phase !== phase) {
              phase = doc.phase;
              await publishOpts.beforePhase?.(`phase ${phase}`);
            }
            objects.set(doc.key, { body: doc.body, ...headersOf(doc) });
            etagOf.set(doc.key, `m${++etags}`);
            ledger.landed(doc.key, { etag: etagOf.get(doc.key)!, fingerprint: print });
            report.written++;
          },
        },
      );
      const { remove, pending, next } = ledger.finish({ built, listing, asOf, deleteAfterMs: opts.deleteAfterMs ?? 0 });
      await publishOpts.beforePhase?.('deletes');
      for (const key of remove) {
        objects.delete(key);
        etagOf.delete(key);
      }
      manifest = next;
      return { ...report, deleted: remove.length, pendingDelete: Object.keys(pending).length };
    },
  };
}
