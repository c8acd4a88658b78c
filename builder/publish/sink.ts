// One interface for every place the API is published to (local directory, S3).

/** A rendered file. `phase` orders publishing: everything of a lower phase is in place before a higher one starts. */
export interface OutputDocument {
  key: string;
  body: string;
  contentType: string;
  /** `null` for language-independent documents (OpenAPI, schemas). */
  contentLanguage: string | null;
  cacheControl: string;
  phase: number;
}

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

export interface Sink {
  readonly name: string;
  publish(docs: readonly OutputDocument[]): Promise<PublishReport>;
}

/** Phases: event files and history first, then forecast/signals/accuracy, then the documents that point at them. */
export const PHASE = { leaves: 0, lists: 1, summaries: 2, schemas: 3 } as const;
