// Pure: how a forecast would have scored on ResetBench's leaderboard window had its collector fetched it every hour.
// Our own implementation of its documented rules (docs/reference-methodology.md of codex-reset-benchmark):
//  - the collector fetches every source hourly, at minute 17 (its workflow's schedule);
//  - at each checkpoint (00/06/12/18 UTC) the latest snapshot observed at or before it, at most 6 h old, is scored;
//  - a reset is dated by its announcement (`occurred_at`), and the outcome is a reset in (t, t + h];
//  - a case resolves only when its whole window falls at or before the ground truth's `reviewed_at`.
import { HOUR_MS, HORIZONS_HOURS, toIso, type HorizonHours } from '../builder/model/climatology.ts';
import { eventMs } from '../builder/model/events.ts';
import { brier, resolveCheckpoint } from '../builder/model/accuracy.ts';
import type { Event } from '../builder/model/schemas.ts';
import { countsAsGlobal } from '../builder/model/reach.ts';

/** ResetBench dates a reset by its announcement (`occurred_at`) unless an effective time is independently checked. */
export function announcementMs(e: Event): number {
  return e.announced_at === null ? eventMs(e) : Date.parse(e.announced_at);
}

/** The published leaderboard this window reproduces (docs/generated/leaderboard.json, generated 2026-08-22T17:40:15Z). */
export const LEADERBOARD = {
  first_checkpoint: '2026-08-14T12:00:00Z',
  reviewed_at: '2026-08-22T12:57:00Z',
  /** The scored peers' Brier per horizon, from that leaderboard (rank-eligible sources only). */
  peers: {
    24: { 'codexreset-org': 0.034175, 'codex-reset-com': 0.085712, 'codexreset-today': 0.144607 },
    48: {
      willcodexquotareset: 0.089275,
      'codexreset-org': 0.1181,
      'codex-reset-radar': 0.198842,
      'codex-reset-com': 0.25222,
    },
  } satisfies Record<HorizonHours, Record<string, number>>,
} as const;

/** The collector's fetch minute past every hour, and our build cadence: the document fetched was built at the last tick. */
const COLLECT_MINUTE = 17;
const BUILD_EVERY_MINUTES = 15;

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export const PEER_MEDIAN: Record<HorizonHours, number> = {
  24: median(Object.values(LEADERBOARD.peers[24])),
  48: median(Object.values(LEADERBOARD.peers[48])),
};

/** When the forecast scored at checkpoint `t` was issued: built at the last tick before the last fetch at or before t. */
export function issuedFor(t: number): number {
  const fetched = Math.floor((t - COLLECT_MINUTE * 60_000) / HOUR_MS) * HOUR_MS + COLLECT_MINUTE * 60_000;
  const tick = BUILD_EVERY_MINUTES * 60_000;
  return Math.floor(fetched / tick) * tick;
}

export type WindowScore = ReturnType<typeof scoreLeaderboardWindow>[number];

/**
 * Scores `forecast(issuedMs, h)` (a probability, or null when none was published) at every leaderboard checkpoint,
 * with its rank (1-based, lower Brier first) among the peers and this forecast. A null is no case, as in ResetBench
 * (no forecast is imputed).
 */
export function scoreLeaderboardWindow(
  events: readonly Event[],
  forecast: (issuedMs: number, h: HorizonHours) => number | null,
) {
  const first = Date.parse(LEADERBOARD.first_checkpoint);
  const reviewed = Date.parse(LEADERBOARD.reviewed_at);
  const resets = events.filter(countsAsGlobal).map((e) => ({ id: e.id, ms: announcementMs(e) }));
  return HORIZONS_HOURS.map((h) => {
    const cases: { p: number; outcome: boolean }[] = [];
    for (let t = first; t + h * HOUR_MS <= reviewed; t += 6 * HOUR_MS) {
      const p = forecast(issuedFor(t), h);
      if (p !== null) cases.push({ p, outcome: resolveCheckpoint(resets, t, h, reviewed)!.outcome });
    }
    const n = cases.length;
    const brierScore = cases.reduce((s, c) => s + brier(c.p, c.outcome), 0) / n;
    const peers = Object.values(LEADERBOARD.peers[h]);
    return {
      horizon_hours: h,
      n,
      brier: brierScore,
      mean_probability: cases.reduce((s, c) => s + c.p, 0) / n,
      observed_frequency: cases.filter((c) => c.outcome).length / n,
      rank: 1 + peers.filter((b) => b < brierScore).length,
      of: peers.length + 1,
      peer_median: PEER_MEDIAN[h],
    };
  });
}

export const describeWindow = () =>
  `checkpoints ${LEADERBOARD.first_checkpoint} .. the last whose window closed by the ground truth's reviewed_at ${LEADERBOARD.reviewed_at}; fetched hourly at :${COLLECT_MINUTE}, each fetch serving the document built at the last ${BUILD_EVERY_MINUTES}-minute tick; resets dated by announcement; first case ${toIso(Date.parse(LEADERBOARD.first_checkpoint))}`;
