// The golden builds: `npm run build` as a child process at a fixed --now from the bundled data, and the sha256 listing
// of every file it leaves in dist/ and the state directory. Two inputs: every network source pointed at a closed
// loopback port (each fails as connection_refused), and the real upstreams' captures replayed on loopback
// (test/real-upstreams/replay.ts, the 2026-09-29 scenario). test/golden/golden.test.ts compares each against its
// committed listing; `npm run golden:update` rewrites both.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { listFiles } from '../helpers/files.ts';
import { SCENARIOS, startReplay } from '../real-upstreams/replay.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
export const LISTING_PATH = path.join(ROOT, 'test/golden/listing.txt');
export const REPLAY_LISTING_PATH = path.join(ROOT, 'test/golden/listing-replay.txt');
export const GOLDEN_NOW = '2026-11-21T12:00:00Z';
/** Just after the 2026-09-29 captures were taken (16:30Z). */
export const REPLAY_NOW = '2026-09-29T16:45:00Z';
/** TCP port 1 on loopback: a reserved port nothing listens on, so every source fails the same way on every machine. */
const CLOSED = { host: '127.0.0.1', port: 1 };

/** Fails unless nothing accepts connections on the closed port (otherwise the sources would not fail honestly). */
export async function assertClosedPort(): Promise<void> {
  const open = await new Promise<boolean>((resolve) => {
    const socket = connect(CLOSED.port, CLOSED.host);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
  if (open)
    throw new Error(`something listens on ${CLOSED.host}:${CLOSED.port}; the golden build needs that port closed`);
}

/** `port`: the replay server's, for the replayed build. */
type Result = { code: number | null; stdout: string; stderr: string; port?: number };

/** Runs the real build at `now` into `root`/dist and `root`/state with only `sources` as its environment. */
function runBuild(root: string, now: string, sources: Record<string, string>): Promise<Result> {
  // A minimal environment: no operator variable leaks in, and the User-Agent names a fixed repository.
  const env = { PATH: process.env.PATH ?? '', TZ: 'UTC', RESET_TARGET: 'local', ...sources };
  const args = ['--import', 'tsx', 'builder/main.ts', '--now', now];
  args.push('--out', path.join(root, 'dist'), '--state-dir', path.join(root, 'state'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The build with every network source refused. */
export function buildGolden(root: string): Promise<Result> {
  const base = `http://${CLOSED.host}:${CLOSED.port}`;
  return runBuild(root, GOLDEN_NOW, {
    RESET_STATUS_PAGE_URL: `${base}/status/api/v2/summary.json`,
    RESET_UPSTREAM_URL: `${base}/api/v1/resets`,
    RESET_TIMELINE_URL: '',
    RESET_POST_EMBED_URL: '',
    RESET_SIGNAL_FEEDS: `${base}/feed.rss`,
  });
}

/** The build against the real upstreams' 2026-09-29 captures, replayed on loopback. */
export async function buildGoldenReplay(root: string): Promise<Result> {
  const replay = await startReplay(SCENARIOS['2026-09-29']);
  try {
    const env = { ...replay.env, GITHUB_REPOSITORY: 'example-org/reset-status-api' };
    return { ...(await runBuild(root, REPLAY_NOW, env)), port: Number(new URL(replay.server.url).port) };
  } finally {
    await replay.close();
  }
}

/**
 * Values that are not functions of the inputs are fixed before hashing: `latency_ms` of a source check (measured wall
 * time), the run lock's `owner` (a random run id) and the replay server's port (chosen by the system).
 */
export function normalize(file: string, bytes: Buffer, replayPort?: number): Buffer {
  if (!/\.(json|lock|html|xml|ics|txt)$/.test(file)) return bytes;
  let text = bytes
    .toString('utf8')
    .replace(/"latency_ms":\s*\d+/g, '"latency_ms":0')
    .replace(/"owner":\s*"run-[0-9a-f-]+"/g, '"owner":"run-0"');
  if (replayPort !== undefined) text = text.replaceAll(`127.0.0.1:${replayPort}`, '127.0.0.1:0');
  return Buffer.from(text, 'utf8');
}

/** `path sha256` lines, sorted by path, for every file under `root`/dist and `root`/state. */
export async function hashListing(root: string, replayPort?: number): Promise<string[]> {
  const lines: string[] = [];
  for (const dir of ['dist', 'state']) {
    for (const f of await listFiles(path.join(root, dir))) {
      const rel = `${dir}/${f}`;
      const hash = createHash('sha256')
        .update(normalize(rel, await readFile(path.join(root, rel)), replayPort))
        .digest('hex');
      lines.push(`${rel} ${hash}`);
    }
  }
  return lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export function parseListing(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const [file, hash] = line.split(' ');
    if (file !== undefined && hash !== undefined) m.set(file, hash);
  }
  return m;
}

/** The files that changed, appeared or disappeared between the committed listing and a fresh one. */
export function compareListings(
  expected: Map<string, string>,
  actual: Map<string, string>,
): { differ: string[]; added: string[]; missing: string[] } {
  const differ: string[] = [];
  const added: string[] = [];
  const missing: string[] = [];
  for (const [file, hash] of actual) {
    const want = expected.get(file);
    if (want === undefined) added.push(file);
    else if (want !== hash) differ.push(file);
  }
  for (const file of expected.keys()) if (!actual.has(file)) missing.push(file);
  return { differ, added, missing };
}
