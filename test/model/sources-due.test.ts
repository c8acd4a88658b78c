// codex-reset.com's terms: at most one poll a minute, and a 429's Retry-After honoured (model/apply.ts sourcesDue).
// The run leaves such a source unasked until then; every other source is asked every run.
import { describe, expect, it } from 'vitest';
import { sourcesDue } from '../../builder/model/apply.ts';
import type { SourceCheck, SourceKind } from '../../builder/model/schemas.ts';

const timeline = { id: 'reset-timeline', kind: 'reset_timeline' as SourceKind };
const tracker = { id: 'reset-tracker', kind: 'reset_tracker' as SourceKind };

function check(source: string, kind: SourceKind, at: string, params: Record<string, number> = {}): SourceCheck {
  return {
    source,
    kind,
    url: 'https://codex-reset.com/',
    ok: Object.keys(params).length === 0,
    http_status: Object.keys(params).length === 0 ? 200 : 429,
    latency_ms: 10,
    items_read: 0,
    checked_at: at,
    detail: { code: Object.keys(params).length === 0 ? 'ok' : 'rate_limited_wait', params },
  };
}

const due = (checks: SourceCheck[], at: string) =>
  sourcesDue([timeline, tracker], checks, new Date(at)).map((c) => c.id);

describe('sources due this run', () => {
  it('asks every source when none was asked before', () => {
    expect(due([], '2026-09-11T15:00:00Z')).toEqual(['reset-timeline', 'reset-tracker']);
  });

  it('never asks codex-reset.com twice within a minute, and asks again from the minute on', () => {
    const asked = [check('reset-timeline', 'reset_timeline', '2026-09-11T15:00:00Z')];
    expect(due(asked, '2026-09-11T15:00:59Z')).toEqual(['reset-tracker']);
    expect(due(asked, '2026-09-11T15:01:00Z')).toEqual(['reset-timeline', 'reset-tracker']);
  });

  it("waits out a 429's Retry-After across runs", () => {
    const limited = [check('reset-timeline', 'reset_timeline', '2026-09-11T15:00:00Z', { retry_after_s: 1800 })];
    expect(due(limited, '2026-09-11T15:15:00Z')).toEqual(['reset-tracker']);
    expect(due(limited, '2026-09-11T15:30:00Z')).toEqual(['reset-timeline', 'reset-tracker']);
  });

  it('bounds nothing else: the first tracker is asked whenever a run asks', () => {
    const asked = [check('reset-tracker', 'reset_tracker', '2026-09-11T15:00:00Z')];
    expect(due(asked, '2026-09-11T15:00:01Z')).toEqual(['reset-timeline', 'reset-tracker']);
  });
});
