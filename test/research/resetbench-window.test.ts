import { describe, expect, it } from 'vitest';
import { selfExcitingProbability } from '../../research/candidates.ts';
import {
  LEADERBOARD,
  PEER_MEDIAN,
  issuedFor,
  median,
  scoreLeaderboardWindow,
} from '../../research/resetbench-window.ts';
import { testEvent } from '../helpers/events.ts';

const H = 3_600_000;
const D = 24 * H;

describe("ResetBench's leaderboard window, by its documented rules", () => {
  it('scores the document fetched at the last :17 before the checkpoint, as built at the last 15-minute tick', () => {
    const t = Date.parse('2026-08-15T06:00:00Z');
    // Fetched 05:17, built 05:15; a checkpoint at 06:20 would take the 06:17 fetch (built 06:15).
    expect(new Date(issuedFor(t)).toISOString()).toBe('2026-08-15T05:15:00.000Z');
    expect(new Date(issuedFor(t + 20 * 60_000)).toISOString()).toBe('2026-08-15T06:15:00.000Z');
  });

  it('the peer medians are the published leaderboard medians (3 peers at 24h, 4 at 48h)', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(PEER_MEDIAN[24]).toBeCloseTo(0.085712, 9);
    expect(PEER_MEDIAN[48]).toBeCloseTo((0.1181 + 0.198842) / 2, 9);
  });

  it('a constant forecast with no reset scores p^2 on every checkpoint whose window closed by reviewed_at', () => {
    const [s24, s48] = scoreLeaderboardWindow([], () => 0.2);
    // 2026-08-14T12 .. 2026-08-21T12 (24h) and .. 08-20T12 (48h): reviewed_at 2026-08-22T12:57.
    expect(s24).toMatchObject({ horizon_hours: 24, n: 29, observed_frequency: 0 });
    expect(s48).toMatchObject({ horizon_hours: 48, n: 25 });
    expect(s24!.brier).toBeCloseTo(0.04, 12);
    expect(s24!.rank).toBe(2); // 0.04 is behind 0.034175 only
  });

  it('dates a reset by its announcement, not by its effective time, and imputes nothing for a null forecast', () => {
    // Announced 2026-08-15T05:50, effective 06:20: by announcement it falls in the 24h windows from 08-14T06 .. 08-15T00.
    const reset = {
      ...testEvent('2026-08-15T06:20:00Z'),
      announced_at: '2026-08-15T05:50:00Z',
      effective_at: '2026-08-15T06:20:00Z',
      time_basis: 'effective' as const,
    };
    const [s24] = scoreLeaderboardWindow([reset], (at) =>
      at < Date.parse(LEADERBOARD.first_checkpoint) + 19 * H ? 0.8 : null,
    );
    // Forecasts issued before 08-15T07:00 serve the checkpoints 08-14T12, 18, 08-15T00 and 06. The first three windows
    // hold the announcement (05:50); the one from 06:00 does not, although the effective time (06:20) is inside it.
    expect(s24).toMatchObject({ n: 4, observed_frequency: 0.75 });
    expect(s24!.brier).toBeCloseTo((3 * 0.2 ** 2 + 0.8 ** 2) / 4, 12);
  });
});

describe('self-exciting-v1 (a candidate)', () => {
  it('rises after a burst and falls back towards the long-run rate as quiet days pass', () => {
    const asOf = Date.parse('2026-06-01T00:00:00Z');
    const steady = Array.from({ length: 12 }, (_, i) => asOf - 300 * D + i * 25 * D);
    const burst = [...steady, asOf - 3 * D, asOf - 2 * D, asOf - 1 * D].sort((a, b) => a - b);
    const params = { branching: 0.8, kernel_half_life_days: 7 };
    const now = selfExcitingProbability(burst, asOf, 24 * H, params);
    const later = selfExcitingProbability(burst, asOf + 21 * D, 24 * H, params);
    const base = selfExcitingProbability(burst, asOf + 200 * D, 24 * H, params);
    expect(now).toBeGreaterThan(later);
    expect(later).toBeGreaterThan(base);
    // Far from any reset only the long-run rate is left: mu = (1 - branching) x resets in the last 365 days / 365 days.
    const n = burst.filter((t) => t > asOf + 200 * D - 365 * D).length;
    expect(n).toBe(9);
    expect(base).toBeCloseTo(1 - Math.exp(-((0.2 * n) / 365) * 1), 6);
  });
});
