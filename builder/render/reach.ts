// Pure: an event's reach (model/reach.ts) as the API shows it: each value with its translated label and the post's
// words it was read from (never translated), and one summary line ("all paid plans · weekly limit · lands by ...").
// Also the announced reset: /api/latest's and /api/status's `upcoming`, and the words every follow format shares.
import type { TFunction } from 'i18next';
import { formatInstant } from '../contract.ts';
import { type bankedResetWarning, hasReach, reachOf, type ReachToday } from '../model/reach.ts';
import type { Announcement, Event, Reach } from '../model/schemas.ts';

/** "2026-07-21 17:47 UTC": the landing instant as a reader sees it, in every language. */
const utcMinute = (at: string): string => `${formatInstant(at).slice(0, 16).replace('T', ' ')} UTC`;

/** The reach of a reset event as its document shows it; null for an event that is not a reset. */
export function renderReach(e: Event, t: TFunction) {
  if (!hasReach(e)) return null;
  const r = reachOf(e);
  const notStated = t('common:reach.not_stated');
  const list = (keys: readonly string[] | null, ns: string) =>
    keys === null ? notStated : keys.map((k) => t(`common:reach.${ns}.${k}`)).join(', ');
  const l = {
    plans: list(r.plans.value, 'plan'),
    products: list(r.products.value, 'product'),
    models: r.models.value === null ? notStated : t('common:reach.models', { models: r.models.value.join(', ') }),
    cohort: r.cohort.value === null ? notStated : t('common:reach.cohort', { count: r.cohort.value }),
    limits: list(r.limits.value, 'limit'),
    landing:
      r.landing.until !== null
        ? t('common:reach.lands_by', { time: utcMinute(r.landing.until) })
        : r.landing.as_written !== null
          ? t('common:reach.landing_unbounded')
          : notStated,
  };
  // The summary names only what the post states: plans, products, models, cohort, limits, then the landing.
  const fields = ['plans', 'products', 'models', 'cohort', 'limits'] as const;
  const stated = fields.filter((k) => r[k].value !== null).map((k) => l[k]);
  if (r.landing.until !== null) stated.push(l.landing);
  const shown = <K extends (typeof fields)[number]>(k: K) => ({
    value: structuredClone(r[k].value) as Reach[K]['value'],
    label: l[k],
    quote: r[k].quote,
  });
  return {
    reviewed: r.reviewed,
    summary: r.reviewed ? stated.join(' · ') || notStated : t('common:reach.unreviewed'),
    plans: shown('plans'),
    products: shown('products'),
    models: shown('models'),
    cohort: shown('cohort'),
    limits: shown('limits'),
    landing: {
      from: r.landing.from === null ? null : formatInstant(r.landing.from),
      until: r.landing.until === null ? null : formatInstant(r.landing.until),
      as_written: r.landing.as_written,
      label: l.landing,
      quote: r.landing.quote,
    },
  };
}

/** "17:30 UTC" on the build's UTC day, "2026-07-22 00:30 UTC" on another. */
const timeOfDay = (at: string, asOf: Date): string =>
  at.slice(0, 10) === asOf.toISOString().slice(0, 10) ? `${formatInstant(at).slice(11, 16)} UTC` : utcMinute(at);

/** The banked-reset warning as latest and status show it; null when no global reset is announced or landing. */
export function renderBankedWarning(w: ReturnType<typeof bankedResetWarning>, asOf: Date, t: TFunction) {
  if (w === null) return null;
  const key = w.kind === 'landing' ? 'banked_landing' : w.at === null ? 'banked_announced' : 'banked_announced_at';
  return {
    kind: w.kind,
    at: w.at === null ? null : formatInstant(w.at),
    note: t(`common:reach.${key}`, w.at === null ? {} : { time: timeOfDay(w.at, asOf) }),
  };
}

/** Today's reach as /api/latest and /api/status show it; null when no reset is recorded or landing today. */
export function renderReachToday(today: ReachToday | null, events: readonly Event[], asOf: Date, t: TFunction) {
  if (today === null) return null;
  const summaries = today.event_ids
    .map((id) => events.find((e) => e.id === id))
    .filter((e): e is Event => e !== undefined)
    .map((e) => renderReach(e, t)?.summary ?? '');
  const until = today.propagating_until;
  return {
    event_ids: [...today.event_ids],
    plans: { ...today.plans },
    summary: summaries.join(' / '),
    propagating_until: until === null ? null : formatInstant(until),
    note: until === null ? null : t('common:reach.propagating_until', { time: timeOfDay(until, asOf) }),
  };
}

export const announcementTypeName = (a: Announcement, t: TFunction): string =>
  a.type === null ? t('follow:upcoming.unknown_type') : t(`common:type.${a.type}`);

/** The translated one-line summary: the announced type and, when the post named one, the time in UTC. */
export function announcementSummary(a: Announcement, t: TFunction): string {
  const type = announcementTypeName(a, t);
  const at = a.scheduled_for;
  if (at === null) return t('follow:upcoming.unscheduled', { type });
  return t('follow:upcoming.scheduled', { type, date: at.slice(0, 10), time: at.slice(11, 16) });
}

export function renderUpcoming(a: Announcement | null, t: TFunction) {
  if (a === null) return null;
  return {
    id: a.id,
    type: a.type,
    announced_at: a.announced_at,
    scheduled_for: a.scheduled_for,
    text: a.text,
    source_url: a.source?.url ?? null,
    source: a.source === null ? null : { ...a.source },
    summary: announcementSummary(a, t),
  };
}
