// Runs every configured source once, in parallel and bounded, and returns one result per source, in config order.
import pLimit from 'p-limit';
import { SourceError, messageOf } from '../errors.ts';
import { computeCheck } from './common.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';
import { fetchResetTracker, type ResetTrackerOptions } from './reset-tracker.ts';
import { fetchSignalFeed } from './signal-feeds.ts';
import { fetchStatusPage } from './status-page.ts';
import { redactUrl, redactUrlsIn } from '../redact.ts';
import { fetchTrackerStatus } from './tracker-status.ts';

export const MAX_CONCURRENT_SOURCES = 4;

export interface FetchAllOptions {
  concurrency?: number;
  tracker?: ResetTrackerOptions;
  /** Where an adapter's unexpected throw is reported; default nowhere (the failed check still records it). */
  log?: (line: string) => void;
}

function fetchOne(config: SourceConfig, fetcher: Fetcher, asOf: Date, opts: FetchAllOptions): Promise<SourceResult> {
  switch (config.kind) {
    case 'status_page':
      return fetchStatusPage(fetcher, config, asOf);
    case 'reset_tracker':
      return fetchResetTracker(fetcher, config, asOf, opts.tracker);
    case 'signal_feed':
      return fetchSignalFeed(fetcher, config, asOf);
    case 'tracker_status':
      return fetchTrackerStatus(fetcher, config, asOf);
  }
}

/**
 * Source failures are already values. A throw here is a bug in an adapter; it is logged with its stack and recorded
 * as a failed check (`internal_error`) so one broken adapter cannot stop the other sources from updating state.
 */
export async function fetchAllSources(configs: readonly SourceConfig[], fetcher: Fetcher, asOf: Date, opts: FetchAllOptions = {}): Promise<SourceResult[]> {
  const limit = pLimit(opts.concurrency ?? MAX_CONCURRENT_SOURCES);
  return Promise.all(
    configs.map((config) =>
      limit(async (): Promise<SourceResult> => {
        try {
          return await fetchOne(config, fetcher, asOf, opts);
        } catch (err) {
          const bug = new SourceError('sources/index', `${config.kind} ${config.id} (${redactUrl(config.url)}) threw: ${redactUrlsIn(messageOf(err))}`, { cause: err });
          // A library's message or stack may quote the URL it was given.
          opts.log?.(redactUrlsIn(err instanceof Error && err.stack ? `${bug.message}\n${err.stack}` : bug.message));
          return { check: computeCheck(config, asOf, { ok: false, http_status: null, latency_ms: null, items_read: 0, detail: { code: 'internal_error', params: {} } }) };
        }
      }),
    ),
  );
}
