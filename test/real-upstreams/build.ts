// One real build (builder/main.ts) of the API against a replayed scenario (replay.ts), and readers of what it wrote:
// shared by the replay suites.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { main } from '../../builder/main.ts';
import { startReplay, type Replay, type Scenario } from './replay.ts';

export const REPO = 'example-org/reset-status-api';

export interface Built {
  code: number;
  out: string[];
  root: string;
  replay: Replay;
  doc: <T = Record<string, unknown>>(rel: string) => Promise<T>;
  text: (rel: string) => Promise<string>;
}

const open: { root: string; replay: Replay }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.replay.close();
    await rm(o.root, { recursive: true, force: true });
  }
});

/**
 * One build of the API as of `now` against the replayed scenario, into a fresh directory, or into `after`'s (the next
 * run of the same deployment: its state and its output).
 */
export async function build(
  scenario: Scenario,
  now: string,
  env: Record<string, string> = {},
  after?: string,
): Promise<Built> {
  const replay = await startReplay(scenario);
  const root = after ?? (await mkdtemp(path.join(tmpdir(), 'rsa-replay-')));
  open.push({ root, replay });
  const out: string[] = [];
  // The wall clock bounds the run's network budget; `--now` is the instant the build is as of.
  const io = { now: () => new Date(), out: (l: string) => void out.push(l), err: (l: string) => void out.push(l) };
  const code = await main(
    ['--now', now, '--out', path.join(root, 'dist'), '--state-dir', path.join(root, 'state')],
    { ...replay.env, GITHUB_REPOSITORY: REPO, ...env },
    io,
  );
  const text = (rel: string) => readFile(path.join(root, 'dist', rel), 'utf8');
  return { code, out, root, replay, text, doc: async <T>(rel: string) => JSON.parse(await text(rel)) as T };
}

export interface EventDoc {
  id: string;
  type: string;
  origin: string;
  occurred_at: string;
  same_as: string[];
  sources: { url: string }[];
}
export interface Check {
  source: string;
  kind: string;
  ok: boolean;
  http_status: number | null;
  items_read: number;
  /** The detail's code; `detail` is its translated text. */
  detail_code: string;
  detail: string;
}
export interface Signal {
  id: string;
  kind: string;
  url: string | null;
  curated_type?: string;
  tracker_type?: string;
  event_ids?: string[];
}
export const post = (id: string) => `https://x.com/thsottiaux/status/${id}`;
export const cites = (e: EventDoc, id: string) =>
  e.sources.some((s) => s.url === post(id)) || e.same_as.includes(`sr-${id}`);

export async function history(b: Built): Promise<EventDoc[]> {
  return (await b.doc<{ events: EventDoc[] }>('api/en/history.json')).events;
}
export async function checks(b: Built): Promise<Check[]> {
  return (await b.doc<{ source_checks: Check[] }>('api/en/status.json')).source_checks;
}
export async function signals(b: Built): Promise<Signal[]> {
  return (await b.doc<{ signals: Signal[] }>('api/en/signals.json')).signals;
}
