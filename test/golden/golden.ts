// The golden build: `npm run build` as a child process at a fixed --now from the bundled data, with every network
// source pointed at a closed loopback port (each fails as connection_refused), and the sha256 listing of every file it
// leaves in dist/ and the state directory. test/golden/golden.test.ts compares it against the committed listing;
// `npm run golden:update` rewrites that listing.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { listFiles } from '../helpers/files.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
export const LISTING_PATH = path.join(ROOT, 'test/golden/listing.txt');
export const GOLDEN_NOW = '2026-11-21T12:00:00Z';
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

/** Runs the real build into `root`/dist and `root`/state with a minimal environment (no operator variables leak in). */
export function buildGolden(root: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = `http://${CLOSED.host}:${CLOSED.port}`;
  const env = {
    PATH: process.env.PATH ?? '',
    TZ: 'UTC',
    RESET_TARGET: 'local',
    RESET_STATUS_PAGE_URL: `${base}/status/api/v2/summary.json`,
    RESET_UPSTREAM_URL: `${base}/api/v1/resets`,
    RESET_SIGNAL_FEEDS: `${base}/feed.rss`,
  };
  const args = [
    '--import',
    'tsx',
    'builder/main.ts',
    '--now',
    GOLDEN_NOW,
    '--out',
    path.join(root, 'dist'),
    '--state-dir',
    path.join(root, 'state'),
  ];
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

/**
 * Two values are not functions of the inputs and are fixed before hashing: `latency_ms` of a source check (the
 * measured wall time of the refused connections and their retries) and the run lock's `owner` (a random run id).
 */
export function normalize(file: string, bytes: Buffer): Buffer {
  if (!file.endsWith('.json') && !file.endsWith('.lock')) return bytes;
  const text = bytes
    .toString('utf8')
    .replace(/"latency_ms":\s*\d+/g, '"latency_ms":0')
    .replace(/"owner":\s*"run-[0-9a-f-]+"/g, '"owner":"run-0"');
  return Buffer.from(text, 'utf8');
}

/** `path sha256` lines, sorted by path, for every file under `root`/dist and `root`/state. */
export async function hashListing(root: string): Promise<string[]> {
  const lines: string[] = [];
  for (const dir of ['dist', 'state']) {
    for (const f of await listFiles(path.join(root, dir))) {
      const rel = `${dir}/${f}`;
      const hash = createHash('sha256')
        .update(normalize(rel, await readFile(path.join(root, rel))))
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
