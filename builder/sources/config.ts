// Which sources a run checks, from the environment. An operator mistake here throws: it is a bug, not an outage.
import { ConfigError } from '../errors.ts';
import type { SourceKind } from '../model/schemas.ts';
import type { SourceConfig } from './fetcher.ts';

export const DEFAULT_STATUS_PAGE_URL = 'https://status.openai.com/api/v2/summary.json';
export const DEFAULT_UPSTREAM_URL = 'https://codex-resets.com/api/v1/resets';
export const DEFAULT_SIGNAL_FEEDS = ['https://www.reddit.com/r/codex/new/.rss'] as const;

type SourceEnv = Readonly<Record<string, string | undefined>>;

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

interface Resolved {
  configs: SourceConfig[];
  disabled: DisabledSource[];
}

/**
 * A source whose address follows from another's: `variable` unset → the address of `from` (or its default) with its
 * final `pattern` replaced (disabled with `from`, and when that address does not match `pattern`); set to a URL →
 * that URL; empty (or `none`, where `none` is allowed) → disabled.
 */
function derived(
  env: SourceEnv,
  out: Resolved,
  o: { variable: string; id: string; kind: SourceKind; none: boolean; from: string; fallback: string },
  pattern: RegExp,
  replacement: (base: URL) => string,
): void {
  const off = (): void => void out.disabled.push({ id: o.id, kind: o.kind, variable: o.variable });
  const s = setting(env, o.variable);
  if (s.state === 'disabled' || (o.none && s.state === 'set' && s.value.toLowerCase() === 'none')) return off();
  if (s.state === 'set')
    return void out.configs.push({ id: o.id, kind: o.kind, url: parseHttpUrl(o.variable, s.value) });
  const from = setting(env, o.from);
  if (from.state === 'disabled') return off();
  const base = new URL(parseHttpUrl(o.from, from.state === 'set' ? from.value : o.fallback));
  if (!pattern.test(base.pathname)) return off();
  base.pathname = base.pathname.replace(pattern, replacement(base));
  base.search = '';
  out.configs.push({ id: o.id, kind: o.kind, url: base.href });
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

function resolve(env: SourceEnv): Resolved {
  const configs: SourceConfig[] = [];
  const disabled: DisabledSource[] = [];
  const single = (variable: string, id: string, kind: SourceKind, fallback: string) => {
    const s = setting(env, variable);
    if (s.state === 'disabled') disabled.push({ id, kind, variable });
    else configs.push({ id, kind, url: parseHttpUrl(variable, s.state === 'set' ? s.value : fallback) });
  };
  const out = { configs, disabled };
  single('RESET_STATUS_PAGE_URL', 'status-page', 'status_page', DEFAULT_STATUS_PAGE_URL);
  // incident.io's incident feed of the status page: `/proxy/<page host name>/incidents`.
  derived(
    env,
    out,
    {
      variable: 'RESET_STATUS_INCIDENTS_URL',
      id: 'status-incidents',
      kind: 'status_incidents',
      none: false,
      from: 'RESET_STATUS_PAGE_URL',
      fallback: DEFAULT_STATUS_PAGE_URL,
    },
    /\/api\/v2\/summary\.json$/,
    (u) => `/proxy/${u.hostname}/incidents`,
  );
  const codex = codexComponentIds(env);
  if (codex)
    for (const c of configs) if (c.kind === 'status_page' || c.kind === 'status_incidents') c.codexComponents = codex;
  single('RESET_UPSTREAM_URL', 'reset-tracker', 'reset_tracker', DEFAULT_UPSTREAM_URL);
  derived(
    env,
    out,
    {
      variable: 'RESET_UPSTREAM_STATUS_URL',
      id: 'tracker-status',
      kind: 'tracker_status',
      none: true,
      from: 'RESET_UPSTREAM_URL',
      fallback: DEFAULT_UPSTREAM_URL,
    },
    /\/resets\/?$/,
    () => '/status',
  );

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
