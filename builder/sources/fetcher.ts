// The one HTTP interface every source uses. Failures are values, never exceptions.
import type { Detail, SourceKind } from '../model/schemas.ts';

export type FetchResult =
  | { ok: true; status: number; body: string; latencyMs: number }
  | { ok: false; status: number | null; latencyMs: number; detail: Detail };

export interface Fetcher {
  get(url: string, opts?: { accept?: string }): Promise<FetchResult>;
}

export interface SourceConfig {
  /** Stable id used in checks and state, e.g. `status-page`, `reset-tracker`, `feed-1`. */
  id: string;
  kind: SourceKind;
  /** May carry credentials (it may come from a secret): only ever shown through redactUrl. */
  url: string;
  /** Status page and its incident feed: the Codex component ids (default: status-page.ts's documented list). */
  codexComponents?: readonly string[];
}
