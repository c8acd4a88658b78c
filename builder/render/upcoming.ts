// Pure: the `upcoming` block of /api/latest and /api/status, and the translated words every follow format shares.
import type { TFunction } from 'i18next';
import type { z } from 'zod';
import type { Announcement } from '../model/schemas.ts';
import type { UpcomingDocSchema } from './schemas.ts';

export function announcementTypeName(a: Announcement, t: TFunction): string {
  return a.type === null ? t('follow:upcoming.unknown_type') : t(`common:type.${a.type}`);
}

/** The translated one-line summary: the announced type and, when the post named one, the time in UTC. */
export function announcementSummary(a: Announcement, t: TFunction): string {
  const type = announcementTypeName(a, t);
  if (a.scheduled_for === null) return t('follow:upcoming.unscheduled', { type });
  return t('follow:upcoming.scheduled', {
    type,
    date: a.scheduled_for.slice(0, 10),
    time: a.scheduled_for.slice(11, 16),
  });
}

export function renderUpcoming(a: Announcement | null, t: TFunction): z.infer<typeof UpcomingDocSchema> | null {
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
