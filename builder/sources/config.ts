// Which sources a run checks, from the environment. An operator mistake here throws: it is a bug, not an outage.
import { ConfigError } from '../errors.ts';
import type { SourceKind } from '../model/schemas.ts';
import type { SourceConfig } from './fetcher.ts';

export const DEFAULT_STATUS_PAGE_URL = 'https://status.openai.com/api/v2/summary.json';
export const DEFAULT_UPSTREAM_URL = 'https://codex-resets.com/api/v1/resets';
export const DEFAULT_RESET_TIMELINE_URL = 'https://codex-reset.com/api/timeline';
export const DEFAULT_SIGNAL_FEEDS = ['https://www.reddit.com/r/codex/new/.rss'] as const;
/** X's documented keyless oEmbed endpoint: the service reads official posts itself (post-embed.ts). */
export const DEFAULT_POST_EMBED_URL = 'https://publish.twitter.com/oembed';

type SourceEnv = Readonly<Record<string, string | undefined>>;

/** A source switched off, and the variable that did it. */
export type DisabledSource = { id: string; kind: SourceKind; variable: string };

const configError = (message: string) => new ConfigError('sources/config', message);

function parseHttpUrl(variable: string, raw: string): string {
  const url = URL.parse(raw);
  // The value is never shown, nor its scheme (`token:abc` parses as one): it may be a secret, mistyped.
  if (url === null) throw configError(`${variable} is not a valid URL`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw configError(`${variable} must be an http(s) URL (the value is not shown)`);
  return url.href;
}

/** A source's address: unset → `fallback`; empty or blank (or `none`, where allowed) → null, disabled; else the URL. */
function address(env: SourceEnv, variable: string, fallback: string | null, none = false): string | null {
  const v = env[variable]?.trim();
  if (v === undefined) return fallback;
  return v === '' || (none && v.toLowerCase() === 'none') ? null : parseHttpUrl(variable, v);
}

/** The address of a source beside another: `base` with its final `pattern` replaced; null when off or no match. */
function beside(base: string | null, pattern: RegExp, replacement: (base: URL) => string): string | null {
  const url = base === null ? null : new URL(base);
  if (url === null || !pattern.test(url.pathname)) return null;
  url.pathname = url.pathname.replace(pattern, replacement(url));
  url.search = '';
  return url.href;
}

/** Longest list RESET_STATUS_CODEX_COMPONENTS may hold (the Codex group has five). */
const MAX_CODEX_COMPONENT_IDS = 100;
const COMPONENT_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * RESET_STATUS_CODEX_COMPONENTS: unset → undefined (the status page adapter's documented default list); otherwise a
 * comma-separated list of component ids, blanks and duplicates ignored (empty → no ids: the name match alone).
 */
function codexComponentIds(env: SourceEnv): string[] | undefined {
  const variable = 'RESET_STATUS_CODEX_COMPONENTS';
  const entries = env[variable]?.split(',').map((s) => s.trim());
  if (entries === undefined) return undefined;
  const bad = entries.findIndex((id) => id !== '' && !COMPONENT_ID.test(id));
  if (bad !== -1)
    throw configError(
      `${variable} entry ${bad + 1} is not a component id (letters, digits, - and _, at most 100 characters)`,
    );
  const ids = [...new Set(entries.filter((id) => id !== ''))];
  if (ids.length > MAX_CODEX_COMPONENT_IDS)
    throw configError(`${variable} lists ${ids.length} ids, more than ${MAX_CODEX_COMPONENT_IDS}`);
  return ids;
}

function resolve(env: SourceEnv): { configs: SourceConfig[]; disabled: DisabledSource[] } {
  const configs: SourceConfig[] = [];
  const disabled: DisabledSource[] = [];
  const add = (id: string, kind: SourceKind, variable: string, url: string | null) =>
    url === null ? disabled.push({ id, kind, variable }) : configs.push({ id, kind, url });
  /** Adds the source at `variable`'s address (see address()) and returns that address. */
  const source = (id: string, kind: SourceKind, variable: string, fallback: string | null, none = false) => {
    const url = address(env, variable, fallback, none);
    add(id, kind, variable, url);
    return url;
  };
  const page = source('status-page', 'status_page', 'RESET_STATUS_PAGE_URL', DEFAULT_STATUS_PAGE_URL);
  // incident.io's incident feed of the status page: `/proxy/<page host name>/incidents`.
  const incidents = beside(page, /\/api\/v2\/summary\.json$/, (u) => `/proxy/${u.hostname}/incidents`);
  source('status-incidents', 'status_incidents', 'RESET_STATUS_INCIDENTS_URL', incidents);
  const codex = codexComponentIds(env);
  // The two status sources, the only ones so far, read the Codex component list.
  if (codex) for (const c of configs) c.codexComponents = codex;
  const tracker = source('reset-tracker', 'reset_tracker', 'RESET_UPSTREAM_URL', DEFAULT_UPSTREAM_URL);
  const status = beside(tracker, /\/resets\/?$/, () => '/status');
  source('tracker-status', 'tracker_status', 'RESET_UPSTREAM_STATUS_URL', status, true);
  source('reset-timeline', 'reset_timeline', 'RESET_TIMELINE_URL', DEFAULT_RESET_TIMELINE_URL);

  const feeds = env.RESET_SIGNAL_FEEDS;
  if (feeds?.trim() === '') add('feed-1', 'signal_feed', 'RESET_SIGNAL_FEEDS', null);
  const list = feeds === undefined ? [...DEFAULT_SIGNAL_FEEDS] : feeds.split(',').map((s) => s.trim());
  const urls = new Set(list.filter((s) => s !== '').map((u) => parseHttpUrl('RESET_SIGNAL_FEEDS', u)));
  // Ids follow the list order: reordering the list renames feeds, which only affects check history, since
  // signals are keyed by their link.
  [...urls].forEach((url, i) => add(`feed-${i + 1}`, 'signal_feed', 'RESET_SIGNAL_FEEDS', url));
  // The post reader is not read every run like the others: it reads the posts the model plans (postEmbedConfigFromEnv).
  if (postEmbedConfigFromEnv(env) === null) add('post-embed', 'post_embed', 'RESET_POST_EMBED_URL', null);
  return { configs, disabled };
}

/**
 * The post reader (`RESET_POST_EMBED_URL`): unset → X's oEmbed endpoint; empty or blank → null, automatic verification
 * off; otherwise an http(s) URL (else ConfigError naming the variable). Not among sourceConfigsFromEnv's sources.
 */
export function postEmbedConfigFromEnv(env: SourceEnv): SourceConfig | null {
  const url = address(env, 'RESET_POST_EMBED_URL', DEFAULT_POST_EMBED_URL);
  return url === null ? null : { id: 'post-embed', kind: 'post_embed', url };
}

/**
 * The sources to check. Each variable: unset → the documented default; empty string → that source is disabled
 * (not checked, no check recorded); otherwise an http(s) URL, or for RESET_SIGNAL_FEEDS a comma-separated list of
 * them. Throws ConfigError naming the variable for anything else (RESET_STATUS_CODEX_COMPONENTS: not a list of ids).
 */
export const sourceConfigsFromEnv = (env: SourceEnv): SourceConfig[] => resolve(env).configs;

/** The sources an operator switched off, so the status can say "disabled" instead of "not checked yet". */
export const disabledSourcesFromEnv = (env: SourceEnv): DisabledSource[] => resolve(env).disabled;
