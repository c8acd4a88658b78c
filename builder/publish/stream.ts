// How every sink consumes a DocumentStream: in phase order, holding a bounded window of documents, finishing one
// phase before the next starts. What a sink does with each document stays in the sink.
import { DataError } from '../errors.ts';
import type { OutputDocument } from '../render/output.ts';
import type { DocumentStream } from './sink.ts';

/**
 * Documents a sink has taken from the stream and not yet finished (written, or found unchanged) at any moment, the
 * ones being written included: the bodies a publish holds beyond the one the stream is producing. Large enough for
 * the writes to run `concurrency` at a time; small against a build.
 */
export const STREAM_WINDOW_DOCS = 256;

/** The documents in phase order: an array is put in order (stable), any other stream is checked as it comes. */
export async function* inPhaseOrder(
  docs: DocumentStream,
  where: string,
): AsyncGenerator<OutputDocument, void, undefined> {
  if (Array.isArray(docs)) {
    // A copy of the references: the caller's array is left as it is.
    yield* [...(docs as readonly OutputDocument[])].sort((a, b) => a.phase - b.phase);
    return;
  }
  let last = -Infinity;
  let lastKey = '';
  for await (const d of docs) {
    if (d.phase < last) {
      throw new DataError(
        where,
        `${JSON.stringify(d.key)} of phase ${d.phase} came after ${JSON.stringify(lastKey)} of phase ${last}: a document stream must be in phase order`,
      );
    }
    last = d.phase;
    lastKey = d.key;
    yield d;
  }
}

export interface StreamWork {
  /** Awaited when the first document of a phase arrives, after the phase before it ended, before it is started. */
  startPhase?(phase: number): Promise<void>;
  /** Awaited once every document of the phase is finished, before the next phase starts, and at the end. */
  endPhase?(phase: number): Promise<void>;
  /** Checks a document as it arrives, before it is started; a throw stops the publish with nothing of it written. */
  accept(doc: OutputDocument): void;
  /** Writes (or finds unchanged) one document. */
  write(doc: OutputDocument): Promise<void>;
}

export interface StreamLimits {
  /** At most this many documents taken and not finished (STREAM_WINDOW_DOCS). */
  windowDocs: number;
  /** At most this many `write`s at once. */
  concurrency: number;
}

/**
 * Takes the documents as they come, `concurrency` writes at a time, never more than `windowDocs` taken and not
 * finished. A phase ends when the first document of a higher phase arrives (or the stream ends): its writes are
 * finished and `endPhase` awaited before `startPhase` of the next. After the first failure (a write, a check, the
 * stream itself) nothing more is taken or started; the writes under way are waited for, the stream is closed (its
 * `finally` blocks run) and the first failure is thrown.
 */
export async function consumeInPhases(
  docs: DocumentStream,
  where: string,
  limits: StreamLimits,
  work: StreamWork,
): Promise<void> {
  if (!(limits.windowDocs >= 1 && limits.concurrency >= 1))
    throw new RangeError(`[${where}] windowDocs and concurrency must be at least 1`);
  const source = inPhaseOrder(docs, where);
  /** Documents taken and not started, oldest first. */
  const queue: OutputDocument[] = [];
  let running = 0;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const signal = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const changed = () => new Promise<void>((resolve) => (wake = resolve));
  const startMore = () => {
    while (failure === null && running < limits.concurrency && queue.length > 0) {
      const doc = queue.shift()!;
      running++;
      work
        .write(doc)
        .catch((error: unknown) => void (failure ??= { error }))
        .finally(() => {
          running--;
          startMore();
          signal();
        });
    }
  };
  /** Until every document taken so far is finished, or a failure. */
  const drain = async () => {
    while (running > 0 || (failure === null && queue.length > 0)) await changed();
  };

  let phase: number | null = null;
  try {
    for (;;) {
      while (failure === null && queue.length + running >= limits.windowDocs) await changed();
      if (failure !== null) break;
      const next = await source.next();
      if (next.done) break;
      const doc = next.value;
      if (doc.phase !== phase) {
        if (phase !== null) {
          await drain();
          if (failure !== null) break;
          await work.endPhase?.(phase);
        }
        phase = doc.phase;
        await work.startPhase?.(phase);
      }
      work.accept(doc);
      queue.push(doc);
      startMore();
    }
    if (failure === null) await drain();
    if (failure === null && phase !== null) await work.endPhase?.(phase);
  } catch (error) {
    failure ??= { error };
  }
  if (failure === null) return;
  queue.length = 0;
  while (running > 0) await changed();
  try {
    await source.return?.(undefined);
  } catch {
    // The stream's own cleanup failed: the first failure is the one to report.
  }
  throw failure.error;
}
