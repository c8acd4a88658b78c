// Runs every configured source once, in parallel and bounded, and returns one result per source, in config order.
import pLimit from 'p-limit';
import { SourceError, messageOf } from '../errors.ts';
import { computeCheck } from './common.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { Fetcher, SourceConfig } from './fetcher.ts';
import { fetchResetTracker, type ResetTrackerOptions } from './reset-tracker.ts';
import { fetchSignalFeed } from './signal-feeds.ts';
import { fetchStatusIncidents } from './status-incidents.ts';
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
    case 'status_incidents':
      return fetchStatusIncidents(fetcher, config, asOf);
  }
}

/**
 * Source failures are already values. A throw here is a bug in an adapter; it is logged with its stack and recorded
 * as a failed check (`internal_error`) so one broken adapter cannot stop the other sources from updating state.
 */
export async function fetchAllSources(
  configs: readonly SourceConfig[],
  fetcher: Fetcher,
  asOf: Date,
  opts: FetchAllOptions = {},
): Promise<SourceResult[]> {
  const limit = pLimit(opts.concurrency ?? MAX_CONCURRENT_SOURCES);
  const results = await Promise.all(
    configs.map((config) =>
      limit(async (): Promise<SourceResult> => {
        try {
          return await fetchOne(config, fetcher, asOf, opts);
        } catch (err) {
          const bug = new SourceError(
            'sources/index',
            `${config.kind} ${config.id} (${redactUrl(config.url)}) threw: ${redactUrlsIn(messageOf(err))}`,
            { cause: err },
          );
          // A library's message or stack may quote the URL it was given.
          opts.log?.(redactUrlsIn(err instanceof Error && err.stack ? `${bug.message}\n${err.stack}` : bug.message));
          return {
            check: computeCheck(config, asOf, {
              ok: false,
              http_status: null,
              latency_ms: null,
              items_read: 0,
              detail: { code: 'internal_error', params: {} },
            }),
          };
        }
      }),
    ),
  );
  return compareTrackerTotal(results);
}

/** A complete read of `/resets` (no cap or cursor stopped it): the only one whose record count `stats.total` can check. */
const COMPLETE_READS = new Set(['ok', 'ok_with_rejections', 'ok_with_notes']);

/**
 * The tracker's status says how many resets it holds (`stats.total`); when a complete read of `/resets` in the same run
 * listed another number, the status check says so (`ok_total_differs`), as a note for operators: records may have
 * been added between the two requests, or the tracker's list and count disagree.
 */
export function compareTrackerTotal(results: SourceResult[]): SourceResult[] {
  const resets = results.find(
    (r) => r.check.kind === 'reset_tracker' && r.check.ok && COMPLETE_READS.has(r.check.detail.code),
  );
  if (!resets) return results;
  const listed = resets.check.items_read + Number(resets.check.detail.params.rejected ?? 0);
  return results.map((r) => {
    if (
      r.check.kind !== 'tracker_status' ||
      !r.check.ok ||
      r.stats_total === undefined ||
      r.stats_total === listed ||
      r.check.detail.code !== 'ok'
    )
      return r;
    return {
      ...r,
      check: {
        ...r.check,
        detail: { code: 'ok_total_differs', params: { stats_total: r.stats_total, records_listed: listed } },
      },
    };
  });
}
