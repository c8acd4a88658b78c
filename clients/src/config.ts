// The client's defaults. The package imports nothing of the builder: these mirror the API's published contract.

/** The API asked without --base-url, RESET_STATUS_API_URL or `baseUrl`: baked in by a release, else null. */
export { PRODUCTION_API_URL } from './api-url.ts';
export const NO_API_URL_MESSAGE =
  'no API URL configured: pass --base-url URL or set RESET_STATUS_API_URL (this build of the package names no production host)';
export const API_URL_ENV = 'RESET_STATUS_API_URL';
/** Overrides the statusline's on-disk cache folder (tests point it at a temporary one); it passes the same checks. */
export const CACHE_DIR_ENV = 'RESET_STATUS_CACHE_DIR';

export const LANGS = ['en', 'de', 'ko', 'ja', 'zh'] as const;
export type Lang = (typeof LANGS)[number];
export const EVENT_TYPES = ['global_reset', 'banked_grant', 'policy_change'] as const;
/** The plans `--plan` and the MCP tool's `plan` take: the keys of the API's `today_reach.plans`. */
export const PLANS = ['free', 'go', 'plus', 'pro', 'business', 'enterprise', 'edu'] as const;
export type Plan = (typeof PLANS)[number];

/** Every response is cacheable for 30 s (Cache-Control max-age): polling faster only re-reads the same bytes. */
export const API_MAX_AGE_MS = 30_000;
/**
 * Events per archived history page, as the API publishes it (its documents' `page_size`). The client reads the value
 * from the newest document and falls back on this one when it is missing or absurd.
 */
export const HISTORY_PAGE_SIZE = 100;
/** `history()` and `reset-status history` without a limit: the newest 100, which the newest document always holds (one request). */
export const DEFAULT_HISTORY_LIMIT = 100;
/** The most events one `history()` call collects (`--all` stops here): 100 archived pages. */
export const MAX_HISTORY_EVENTS = 10_000;
/** The most documents one `history()` call reads, whatever the pages hold: the newest and 100 archived pages. */
export const MAX_HISTORY_PAGES = 101;
/** A `page` the API can serve: a positive integer without leading zeros, at most 7 digits (as its router accepts). */
export const HISTORY_PAGE_PATTERN = /^[1-9][0-9]{0,6}$/;
/** A document larger than this is refused: the API's largest (history) is well under it. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** `de_DE.UTF-8` → `de` when supported, else null. */
export function langFromLocale(locale: string | undefined): Lang | null {
  const m = /^([a-z]{2})(?:[_.@-]|$)/i.exec(locale ?? '');
  const l = m?.[1]?.toLowerCase();
  return (LANGS as readonly string[]).includes(l ?? '') ? (l as Lang) : null;
}
