// The one HTTP interface every source uses. Failures are values, never exceptions.
import type { Detail } from '../model/schemas.ts';

export type FetchResult =
  | { ok: true; status: number; body: string; latencyMs: number; url: string }
  | { ok: false; status: number | null; latencyMs: number; url: string; detail: Detail; error: string };

export interface Fetcher {
  get(url: string, opts?: { accept?: string }): Promise<FetchResult>;
}

import type { Event, Signal, SourceCheck, SourceKind, UpstreamStatus } from '../model/schemas.ts';

export interface SourceConfig {
  /** Stable id used in checks and state, e.g. `status-page`, `reset-tracker`, `feed-1`. */
  id: string;
  kind: SourceKind;
  url: string;
}

/**
 * What one source produced in one run. Data fields are present only when the check succeeded; a failed
 * source leaves the previous good data in state untouched.
 */
export interface SourceResult {
  check: SourceCheck;
  events?: Event[];
  status?: UpstreamStatus;
  signals?: Signal[];
}
