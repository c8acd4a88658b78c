// Pure: today's state as a shields.io endpoint badge (JSON) and as a self-contained SVG written by badge-maker.
import { makeBadge } from 'badge-maker';
import type { TFunction } from 'i18next';
import type { TodayState } from '../model/status.ts';

export const BADGE_COLORS: Record<TodayState, string> = {
  confirmed_today: 'brightgreen',
  recorded_today: 'green',
  no_verified_reset: 'blue',
  unknown: 'lightgrey',
};

/** https://shields.io/badges/endpoint-badge: schemaVersion 1, label, message, color. */
export function renderBadge(state: TodayState, t: TFunction): { json: string; svg: string } {
  const badge = {
    schemaVersion: 1 as const,
    label: t('follow:badge.label'),
    message: t(`follow:badge.${state}`),
    color: BADGE_COLORS[state],
  };
  return {
    json: JSON.stringify(badge),
    svg: makeBadge({ label: badge.label, message: badge.message, color: badge.color }),
  };
}
