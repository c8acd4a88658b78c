// Runs every configured source once, in parallel and bounded, and returns one result per source, in config order.
import pLimit from 'p-limit';
import { SourceError, messageOf } from '../errors.ts';
import type { SourceResult } from '../model/inputs.ts';
import type { SourceKind } from '../model/schemas.ts';
import { computeCheck, type Fetcher, type SourceConfig } from './fetcher.ts';
import { fetchResetTimeline } from './reset-timeline.ts';
import { fetchResetTracker } from './reset-tracker.ts';
import { fetchSignalFeed } from './signal-feeds.ts';
import { fetchStatusIncidents } from './status-incidents.ts';
import { fetchStatusPage } from './status-page.ts';
import { redactUrl, redactUrlsIn } from '../redact.ts';
import { fetchTrackerStatus } from './tracker-status.ts';

/** Every kind a run reads on its own; the post reader (`post_embed`) reads the posts the model plans (post-embed.ts). */
type Reader = (fetcher: Fetcher, config: SourceConfig, asOf: Date) => Promise<SourceResult>;
const READERS: Record<Exclude<SourceKind, 'post_embed'>, Reader> = {
  status_page: fetchStatusPage,
  reset_tracker: fetchResetTracker,
  reset_timeline: fetchResetTimeline,
  signal_feed: fetchSignalFeed,
  tracker_status: fetchTrackerStatus,
  status_incidents: fetchStatusIncidents,
};

/**
 * Source failures are already values. A throw here is a bug in an adapter; it is logged (to `log`, when given) with
 * its stack and recorded as a failed check (`internal_error`) so one broken adapter cannot stop the other sources from
 * updating state.
 */
export async function fetchAllSources(
  configs: readonly SourceConfig[],
  fetcher: Fetcher,
  asOf: Date,
  opts: { log?: (line: string) => void } = {},
): Promise<SourceResult[]> {
  const results = await pLimit(4).map(configs, async (config): Promise<SourceResult> => {
    try {
      if (config.kind === 'post_embed') throw new Error(`no reader for ${config.kind} yet`);
      return await READERS[config.kind](fetcher, config, asOf);
    } catch (err) {
      const bug = new SourceError(
        'sources/index',
        `${config.kind} ${config.id} (${redactUrl(config.url)}) threw: ${redactUrlsIn(messageOf(err))}`,
        { cause: err },
      );
      // A library's message or stack may quote the URL it was given.
      opts.log?.(redactUrlsIn(err instanceof Error && err.stack ? `${bug.message}\n${err.stack}` : bug.message));
      const detail = { code: 'internal_error', params: {} };
      const fields = { ok: false, http_status: null, latency_ms: null, items_read: 0, detail };
      return { check: computeCheck(config, asOf, fields) };
    }
  });
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
    const total = r.stats_total;
    if (r.check.kind !== 'tracker_status' || r.check.detail.code !== 'ok' || total === undefined || total === listed)
      return r;
    const detail = { code: 'ok_total_differs', params: { stats_total: total, records_listed: listed } };
    return { ...r, check: { ...r.check, detail } };
  });
}
