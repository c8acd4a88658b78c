// What the renderer is given: the computed state of one run, in the model's types.
import type { Accuracy } from '../model/accuracy.ts';
import type { Forecast } from '../model/forecast.ts';
import type { ArchiveInfo } from '../model/inputs.ts';
import type { TodayStatus } from '../model/status.ts';
import type { Announcement, Event, Signal, SourceCheck, TrackerWatch, UpstreamStatus } from '../model/schemas.ts';
import type { OpenApiOptions } from './openapi.ts';

/** The model's forecast; the trailing rates, coverage and announcement may be absent (then published as null). */
type OptionalForecastKey =
  | 'announced'
  | 'trailing_base_rate_24h'
  | 'trailing_base_rate_48h'
  | 'trailing_90d_base_rate_24h'
  | 'trailing_90d_base_rate_48h'
  | 'covered_until';
type ForecastView = Omit<Forecast, 'window_days' | OptionalForecastKey> & Partial<Pick<Forecast, OptionalForecastKey>>;

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
  accuracy: Accuracy;
  archives: readonly ArchiveInfo[];
  /** The OpenAPI document's `servers` (the public base URL). */
  openapi?: OpenApiOptions;
  /** The announced reset still ahead (model/announcement.ts), or null. */
  upcoming?: Announcement | null;
  /** The upstream tracker's own watch while it lasts, or null. */
  trackerWatch?: TrackerWatch | null;
}
