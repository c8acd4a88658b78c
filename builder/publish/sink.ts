// One interface for every place the API is published to (local directory, S3).
import type { OutputDocument } from '../render/output.ts';

export interface PublishReport {
  target: string;
  written: number;
  unchanged: number;
  deleted: number;
  /** Objects no longer in the build but kept until their safe delay has passed. */
  pendingDelete: number;
  requests: number;
}

export interface PublishOptions {
  /**
   * Awaited before each phase writes anything (`phase 0`, `phase 1`, ...) and before the final step (`deletes`):
   * the run proves there that it still holds its lock. A throw stops the publish before that step writes.
   */
  beforePhase?: (step: string) => Promise<void>;
}

/**
 * What a sink publishes: documents in non-decreasing `phase` order, produced as the sink consumes them, so a build
 * never has to hold every rendered body at once. An array is taken in any order and put in phase order (stable) by
 * the sink; any other iterable must already be in phase order, and a lower phase after a higher one is a DataError.
 */
export type DocumentStream = readonly OutputDocument[] | Iterable<OutputDocument> | AsyncIterable<OutputDocument>;

export interface Sink {
  readonly name: string;
  publish(docs: DocumentStream, opts?: PublishOptions): Promise<PublishReport>;
}
