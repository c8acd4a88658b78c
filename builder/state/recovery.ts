// Pure: how a store turns what it read into a state, and a state into what it writes, shared by every store. A
// stored state that cannot be used is never deleted: the store sets it aside, then carries on from the last good
// copy, or from a clean state when that is unusable too. The stores only do the I/O each step names.
import { StateSchema, emptyState, type State } from '../model/schemas.ts';

/** The text a store writes for `state`, checked against the schema first: parseStoredState's inverse. */
export function serializeState(state: State): string {
  return JSON.stringify(StateSchema.parse(state));
}

export type ParsedState = { ok: true; state: State } | { ok: false; reason: string };

/** Parses a stored state document; returns the reason when it cannot be used. */
export function parseStoredState(text: string): ParsedState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `not valid JSON (${(err as Error).message})` };
  }
  const r = StateSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    return { ok: false, reason: `schema mismatch at ${i.path.map(String).join('.') || '(root)'}: ${i.message}` };
  }
  return { ok: true, state: r.data };
}

/** The first step of a load: nothing stored, a usable state, or one to set aside (with why). */
export type FirstRead = { kind: 'empty' } | { kind: 'ok'; state: State } | { kind: 'unusable'; reason: string };

export function classifyStored(text: string | null): FirstRead {
  if (text === null) return { kind: 'empty' };
  const parsed = parseStoredState(text);
  return parsed.ok ? { kind: 'ok', state: parsed.state } : { kind: 'unusable', reason: parsed.reason };
}

export interface Recovery {
  state: State;
  /** Whether the last good copy was used (false: a clean start). */
  fromLastGood: boolean;
  warning: string;
}

/**
 * After the unusable state was set aside: the last good copy when it parses, a clean state otherwise.
 * `where` prefixes the warning; `stored` and `aside` name the unusable object and where it was kept.
 */
export function recoverState(opts: {
  where: string;
  stored: string;
  aside: string;
  reason: string;
  lastGood: string | null;
  lastGoodName: string;
}): Recovery {
  const problem = `[${opts.where}] ${opts.stored} is unusable (${opts.reason}); kept it as ${opts.aside}`;
  const fallback = opts.lastGood === null ? null : parseStoredState(opts.lastGood);
  if (fallback?.ok) {
    return {
      state: fallback.state,
      fromLastGood: true,
      warning: `${problem} and carried on from the last good copy ${opts.lastGoodName} (saved at ${fallback.state.updated_at ?? 'an unknown time'})`,
    };
  }
  const why =
    fallback === null ? 'there is no last good copy' : `the last good copy is unusable too (${fallback.reason})`;
  return {
    state: emptyState(),
    fromLastGood: false,
    warning: `${problem}; ${why}, so this run started from a clean state`,
  };
}

/** Where the local store keeps an unusable state file: beside it, named by the time it was found. */
export function corruptFileName(file: string, at: Date): string {
  return `${file}.corrupt-${at.toISOString().replace(/[:.]/g, '-')}`;
}

/** Where the S3 store keeps an unusable state object: named by its ETag, so the same bytes are kept once. */
export function corruptObjectKey(corruptPrefix: string, key: string, etag: string): string {
  return `${corruptPrefix}${key.replace(/\//g, '_')}.${etag || 'no-etag'}`;
}
