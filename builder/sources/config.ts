// Which sources a run checks, from the environment. An operator mistake here throws: it is a bug, not an outage.
import { ConfigError } from '../errors.ts';
import type { SourceKind } from '../model/schemas.ts';
import type { SourceConfig } from './fetcher.ts';

export const DEFAULT_STATUS_PAGE_URL = 'https://status.openai.com/api/v2/summary.json';
export const DEFAULT_UPSTREAM_URL = 'https://codex-resets.com/api/v1/resets';
export const DEFAULT_SIGNAL_FEEDS = ['https://www.reddit.com/r/codex/new/.rss'] as const;

export const STATUS_PAGE_SOURCE_ID = 'status-page';
export const RESET_TRACKER_SOURCE_ID = 'reset-tracker';
export const TRACKER_STATUS_SOURCE_ID = 'tracker-status';
export const STATUS_INCIDENTS_SOURCE_ID = 'status-incidents';

export type SourceEnv = Readonly<Record<string, string | undefined>>;

export interface DisabledSource {
  id: string;
  kind: SourceKind;
  /** The variable that disabled it. */
  variable: string;
}

const configError = (message: string) => new ConfigError('sources/config', message);

function parseHttpUrl(variable: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // The value is not shown: it may be a secret (a credentialed URL), mistyped.
    throw configError(`${variable} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    // Not even the scheme is shown (`token:abc` parses as one): the value may be a secret, mistyped.
    throw configError(`${variable} must be an http(s) URL (the value is not shown)`);
  }
  return url.href;
}

/** Unset → the default; set to an empty (or blank) string → disabled; anything else → that value. */
function setting(
  env: SourceEnv,
  variable: string,
): { state: 'default' } | { state: 'disabled' } | { state: 'set'; value: string } {
  const v = env[variable];
  if (v === undefined) return { state: 'default' };
  if (v.trim() === '') return { state: 'disabled' };
  return { state: 'set', value: v.trim() };
}

/**
 * RESET_UPSTREAM_STATUS_URL: unset → RESET_UPSTREAM_URL's address with its final `/resets` replaced by `/status`
 * (disabled with it, and when that address does not end in `/resets`); `none` or empty → disabled.
 */
function trackerStatus(env: SourceEnv, configs: SourceConfig[], disabled: DisabledSource[]): void {
  const variable = 'RESET_UPSTREAM_STATUS_URL';
  const off = (): void => void disabled.push({ id: TRACKER_STATUS_SOURCE_ID, kind: 'tracker_status', variable });
  const s = setting(env, variable);
  if (s.state === 'disabled' || (s.state === 'set' && s.value.toLowerCase() === 'none')) return off();
  if (s.state === 'set')
    return void configs.push({
      id: TRACKER_STATUS_SOURCE_ID,
      kind: 'tracker_status',
      url: parseHttpUrl(variable, s.value),
    });
  const upstream = setting(env, 'RESET_UPSTREAM_URL');
  if (upstream.state === 'disabled') return off();
  const base = new URL(
    parseHttpUrl('RESET_UPSTREAM_URL', upstream.state === 'set' ? upstream.value : DEFAULT_UPSTREAM_URL),
  );
  if (!/\/resets\/?$/.test(base.pathname)) return off();
  base.pathname = base.pathname.replace(/\/resets\/?$/, '/status');
  base.search = '';
  configs.push({ id: TRACKER_STATUS_SOURCE_ID, kind: 'tracker_status', url: base.href });
}

/**
 * RESET_STATUS_INCIDENTS_URL: unset → RESET_STATUS_PAGE_URL's address with its final `/api/v2/summary.json` replaced
 * by incident.io's feed `/proxy/<page host name>/incidents` (disabled with the status page, and when that address does
 * not end in `/api/v2/summary.json`); empty → disabled.
 */
function statusIncidents(env: SourceEnv, configs: SourceConfig[], disabled: DisabledSource[]): void {
  const variable = 'RESET_STATUS_INCIDENTS_URL';
  const off = (): void => void disabled.push({ id: STATUS_INCIDENTS_SOURCE_ID, kind: 'status_incidents', variable });
  const s = setting(env, variable);
  if (s.state === 'disabled') return off();
  if (s.state === 'set')
    return void configs.push({
      id: STATUS_INCIDENTS_SOURCE_ID,
      kind: 'status_incidents',
      url: parseHttpUrl(variable, s.value),
    });
  const page = setting(env, 'RESET_STATUS_PAGE_URL');
  if (page.state === 'disabled') return off();
  const base = new URL(
    parseHttpUrl('RESET_STATUS_PAGE_URL', page.state === 'set' ? page.value : DEFAULT_STATUS_PAGE_URL),
  );
  if (!/\/api\/v2\/summary\.json$/.test(base.pathname)) return off();
  base.pathname = base.pathname.replace(/\/api\/v2\/summary\.json$/, `/proxy/${base.hostname}/incidents`);
  base.search = '';
  configs.push({ id: STATUS_INCIDENTS_SOURCE_ID, kind: 'status_incidents', url: base.href });
}

/** Longest list RESET_STATUS_CODEX_COMPONENTS may hold (the Codex group has five). */
export const MAX_CODEX_COMPONENT_IDS = 100;
const COMPONENT_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * RESET_STATUS_CODEX_COMPONENTS: unset → undefined (the status page adapter's documented default list); otherwise a
 * comma-separated list of component ids, blanks and duplicates ignored (empty → no ids: the name match alone).
 */
function codexComponentIds(env: SourceEnv): string[] | undefined {
  const variable = 'RESET_STATUS_CODEX_COMPONENTS';
  const raw = env[variable];
  if (raw === undefined) return undefined;
  const entries = raw.split(',').map((s) => s.trim());
  entries.forEach((id, i) => {
    if (id !== '' && !COMPONENT_ID.test(id))
      throw configError(
        `${variable} entry ${i + 1} is not a component id (letters, digits, - and _, at most 100 characters)`,
      );
  });
  const ids = [...new Set(entries.filter((id) => id !== ''))];
  if (ids.length > MAX_CODEX_COMPONENT_IDS)
    throw configError(`${variable} lists ${ids.length} ids, more than ${MAX_CODEX_COMPONENT_IDS}`);
  return ids;
}

interface Resolved {
  configs: SourceConfig[];
  disabled: DisabledSource[];
}

function resolve(env: SourceEnv): Resolved {
  const configs: SourceConfig[] = [];
  const disabled: DisabledSource[] = [];
  const single = (variable: string, id: string, kind: SourceKind, fallback: string) => {
    const s = setting(env, variable);
    if (s.state === 'disabled') disabled.push({ id, kind, variable });
    else configs.push({ id, kind, url: parseHttpUrl(variable, s.state === 'set' ? s.value : fallback) });
  };
  single('RESET_STATUS_PAGE_URL', STATUS_PAGE_SOURCE_ID, 'status_page', DEFAULT_STATUS_PAGE_URL);
  statusIncidents(env, configs, disabled);
  const codex = codexComponentIds(env);
  if (codex)
    for (const c of configs) if (c.kind === 'status_page' || c.kind === 'status_incidents') c.codexComponents = codex;
  single('RESET_UPSTREAM_URL', RESET_TRACKER_SOURCE_ID, 'reset_tracker', DEFAULT_UPSTREAM_URL);
  trackerStatus(env, configs, disabled);

  const feeds = setting(env, 'RESET_SIGNAL_FEEDS');
  if (feeds.state === 'disabled') disabled.push({ id: 'feed-1', kind: 'signal_feed', variable: 'RESET_SIGNAL_FEEDS' });
  else {
    const raw =
      feeds.state === 'set'
        ? feeds.value
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== '')
        : [...DEFAULT_SIGNAL_FEEDS];
    const urls = [...new Set(raw.map((u) => parseHttpUrl('RESET_SIGNAL_FEEDS', u)))];
    // Ids follow the list order: reordering the list renames feeds, which only affects check history, since
    // signals are keyed by their link.
    urls.forEach((url, i) => configs.push({ id: `feed-${i + 1}`, kind: 'signal_feed', url }));
  }
  return { configs, disabled };
}

/**
 * The sources to check. Each variable: unset → the documented default; empty string → that source is disabled
 * (not checked, no check recorded); otherwise an http(s) URL, or for RESET_SIGNAL_FEEDS a comma-separated list of
 * them. Throws ConfigError naming the variable for anything else (RESET_STATUS_CODEX_COMPONENTS: not a list of ids).
 */
export function sourceConfigsFromEnv(env: SourceEnv): SourceConfig[] {
  return resolve(env).configs;
}

/** The sources an operator switched off, so the status can say "disabled" instead of "not checked yet". */
export function disabledSourcesFromEnv(env: SourceEnv): DisabledSource[] {
  return resolve(env).disabled;
}
