// One interface for every place the API is published to (local directory, S3, memory).
import type { OutputDocument } from '../render/output.ts';

export interface PublishReport {
  target: string;
  written: number;
  unchanged: number;
  deleted: number;
  /** Objects no longer in the build but kept until their safe delay has passed. */
  pendingDelete: number;
  requests: number;
  /** Wall time of each step of this publish, in ms, in the order run (S3: manifest, list, compare, upload, ...). */
  steps?: Record<string, number>;
}

export interface PublishOptions {
  /**
   * Awaited before each phase writes anything (`phase 0`, `phase 1`, ...) and before the final step (`deletes`):
   * the run proves there that it still holds its lock. A throw stops the publish before that step writes.
   */
  beforePhase?: (step: string) => Promise<void>;
}

export interface Sink {
  readonly name: string;
  publish(docs: readonly OutputDocument[], opts?: PublishOptions): Promise<PublishReport>;
}
