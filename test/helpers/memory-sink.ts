// Sink in memory: the same contract as the local and S3 sinks, for tests. It follows the S3 sink's plan
// (s3-plan.ts) with the stored map as its listing, so dropped objects stay for the delay as they do on S3. It takes the
// build as a stream like the others, writing each document as it comes (keeping bodies is its job).
import { assertSafeKey } from '../../builder/fsutil/safe-key.ts';
import {
  bodyDigest,
  bodyMd5,
  createPublishLedger,
  emptyManifest,
  fingerprint,
  headersOf,
} from '../../builder/publish/s3-plan.ts';
import type { DocumentStream, PublishOptions, PublishReport, Sink } from '../../builder/publish/sink.ts';
import { inPhaseOrder } from '../../builder/publish/stream.ts';

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
      // What it holds is its listing, taken before the build streams in like the S3 sink's: an object written by a
      // publish that failed before its manifest is then caught by its ETag, as on S3.
      const listing = new Map(etagOf);
      const ledger = createPublishLedger(manifest, WHERE);
      let phase: number | null = null;
      for await (const doc of inPhaseOrder(docs, WHERE)) {
        assertSafeKey(doc.key, WHERE);
        ledger.admit(doc.key);
        const digest = bodyDigest(doc.body);
        const print = fingerprint(digest, doc);
        if (ledger.keep(doc.key, print, listing, () => bodyMd5(doc.body))) continue;
        if (doc.phase !== phase) {
          phase = doc.phase;
          await publishOpts.beforePhase?.(`phase ${phase}`);
        }
        objects.set(doc.key, { body: doc.body, ...headersOf(doc) });
        etagOf.set(doc.key, `m${++etags}`);
        ledger.landed(doc.key, { etag: etagOf.get(doc.key)!, fingerprint: print });
      }
      const { remove, pending, next } = ledger.finish({
        listing,
        listed: true,
        asOf,
        deleteAfterMs: opts.deleteAfterMs ?? 0,
      });
      await publishOpts.beforePhase?.('deletes');
      for (const key of remove) {
        objects.delete(key);
        etagOf.delete(key);
      }
      manifest = next;
      return {
        target: 'memory',
        written: ledger.uploaded,
        unchanged: ledger.unchanged,
        deleted: remove.length,
        pendingDelete: Object.keys(pending).length,
        requests: 0,
      };
    },
  };
}
