// What the renderer is given: the computed state of one run, as plain views (render owns these shapes).
import type { Accuracy } from '../model/accuracy.ts';
import type { AnnouncementEffect } from '../model/announcement.ts';
import type { TodayStatus } from '../model/status.ts';
import type {
  Announcement,
  Detail,
  Event,
  Signal,
  SourceCheck,
  TrackerWatch,
  UpstreamStatus,
} from '../model/schemas.ts';
import type { OpenApiOptions } from './openapi.ts';

export interface ForecastView {
  probability_24h: number | null;
  probability_48h: number | null;
  base_rate_24h: number | null;
  base_rate_48h: number | null;
  sample_size: number;
  model_version: string;
  explanation: Detail;
  last_global_reset_at: string | null;
  announced?: AnnouncementEffect | null;
  /** Trailing 30- and 90-day base rates at issue time (absent: published as null). */
  trailing_base_rate_24h?: number | null;
  trailing_base_rate_48h?: number | null;
  trailing_90d_base_rate_24h?: number | null;
  trailing_90d_base_rate_48h?: number | null;
  /** End of the reset sources' observed time. */
  covered_until?: string | null;
}

export type AccuracyView = Accuracy;

export interface ArchiveView {
  name: string;
  url: string;
  records: number;
  notice: string;
  since: string | null;
  /** The full license text, served at /api/license.txt. */
  license_text?: string;
}

export interface RenderInput {
  asOf: Date;
  /** Merged, newest first. */
  events: readonly Event[];
  today: TodayStatus;
  latestReset: Event | null;
  latestVerifiedReset: Event | null;
  checks: readonly SourceCheck[];
  upstreamStatus: UpstreamStatus | null;
  signals: readonly Signal[];
  forecast: ForecastView;
  accuracy: AccuracyView;
  archives: readonly ArchiveView[];
  /** The OpenAPI document's `servers` (the public base URL). */
  openapi?: OpenApiOptions;
  /** The announced reset still ahead (model/upcoming.ts), or null. */
  upcoming?: Announcement | null;
  /** The upstream tracker's own watch while it lasts, or null. */
  trackerWatch?: TrackerWatch | null;
}
