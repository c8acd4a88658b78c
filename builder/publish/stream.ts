// How every sink consumes a DocumentStream: in phase order, holding a bounded window of documents, finishing one
// phase before the next starts, every key checked once. What a sink does with each document stays in the sink.
import pLimit from 'p-limit';
import { DataError } from '../errors.ts';
import { assertSafeKey } from '../fsutil/safe-key.ts';
import type { OutputDocument } from '../render/output.ts';
import type { DocumentStream } from './sink.ts';

/**
 * Documents a sink has taken from the stream and not yet finished (written, or found unchanged) at any moment, the
 * ones being written included: the bodies a publish holds beyond the one the stream is producing. Large enough for
 * the writes to run `concurrency` at a time; small against a build.
 */
export const STREAM_WINDOW_DOCS = 256;

export interface StreamWork {
  /** Awaited when the first document of a phase arrives, after the phase before it ended, before it is started. */
  startPhase?(phase: number): Promise<void>;
  /** Awaited once every document of the phase is finished, before the next phase starts, and at the end. */
  endPhase?(phase: number): Promise<void>;
  /** Checks a document as it arrives, before it is started; a throw stops the publish with nothing of it written. */
  accept?(doc: OutputDocument): void;
  /** Writes (or finds unchanged) one document. */
  write(doc: OutputDocument): Promise<void>;
}

/**
 * Takes the documents as they come, `concurrency` writes at a time, never more than `windowDocs` (STREAM_WINDOW_DOCS)
 * taken and not finished. An unsafe key or a second document for a key is refused (DataError) as it arrives. A phase
 * ends when the first document of a higher phase arrives (or the stream ends): its writes are finished and
 * `endPhase` awaited before `startPhase` of the next. After the first failure (a write, a check, the stream itself)
 * nothing more is taken or started; the stream is closed (its `finally` blocks run), the writes under way are waited
 * for and the first failure is thrown. Returns every key of the build.
 */
export async function consumeInPhases(
  docs: DocumentStream,
  where: string,
  limits: { windowDocs?: number | undefined; concurrency: number },
  work: StreamWork,
): Promise<Set<string>> {
  const windowDocs = limits.windowDocs ?? STREAM_WINDOW_DOCS;
  if (!(windowDocs >= 1 && limits.concurrency >= 1))
    throw new RangeError(`[${where}] windowDocs and concurrency must be at least 1`);
  const limit = pLimit(limits.concurrency);
  const keys = new Set<string>();
  /** One promise per document taken and not finished; none rejects. */
  const taken = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  const fail = (error: unknown) => void (failure ??= { error });
  let phase: number | null = null;
  let lastKey = '';
  // An array is put in phase order (stable); any other stream is checked as it comes.
  const inOrder = Array.isArray(docs)
    ? (docs as readonly OutputDocument[]).toSorted((a, b) => a.phase - b.phase)
    : docs;
  try {
    for await (const doc of inOrder) {
      if (doc.phase !== phase) {
        if (phase !== null) {
          if (doc.phase < phase)
            throw new DataError(
              where,
              `${JSON.stringify(doc.key)} of phase ${doc.phase} came after ${JSON.stringify(lastKey)} of phase ${phase}: a document stream must be in phase order`,
            );
          await Promise.all(taken);
          if (failure !== null) break;
          await work.endPhase?.(phase);
        }
        phase = doc.phase;
        await work.startPhase?.(phase);
      }
      assertSafeKey(doc.key, where);
      if (keys.has(doc.key)) throw new DataError(where, `the build has two documents for ${doc.key}`);
      work.accept?.(doc);
      keys.add(doc.key);
      lastKey = doc.key;
      // A failure is recorded before the write's slot frees, so no write queued behind it starts.
      const done: Promise<void> = limit(async () => {
        if (failure === null) await work.write(doc).catch(fail);
      }).finally(() => taken.delete(done));
      taken.add(done);
      while (failure === null && taken.size >= windowDocs) await Promise.race(taken);
      if (failure !== null) break;
    }
    await Promise.all(taken);
    if (failure === null && phase !== null) await work.endPhase?.(phase);
  } catch (error) {
    fail(error);
  }
  await Promise.all(taken);
  if (failure !== null) throw (failure as { error: unknown }).error;
  return keys;
}
