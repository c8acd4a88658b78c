// The status line's cache on disk: one JSON file per URL in a folder only the user can write. A cache that cannot be
// used (a folder someone else owns or may write, a file that fails its checks) only costs a request.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { EtagCache } from './client.ts';
import { CACHE_DIR_ENV, MAX_BODY_BYTES } from './config.ts';

/**
 * The cache folder: `RESET_STATUS_CACHE_DIR`, else `$XDG_CACHE_HOME/reset-status`, else `~/.cache/reset-status`; only
 * without a home, `<tmpdir>/reset-status-<uid>` (a shared folder: see openDiskCache).
 */
export function cacheDir(env: NodeJS.ProcessEnv): string {
  if (env[CACHE_DIR_ENV]) return env[CACHE_DIR_ENV];
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'reset-status');
  if (env.HOME) return path.join(env.HOME, '.cache', 'reset-status');
  return path.join(os.tmpdir(), `reset-status-${process.getuid?.() ?? os.userInfo().username}`);
}

/** A leftover temporary file older than this is removed (never opened), so a crash does not stop caching for good. */
const LEFTOVER_TMP_MS = 60_000;

/** What a file must hold to be used: the entry and the URL it was stored for. */
const StoredEntry = z.object({
  url: z.string(),
  etag: z.string(),
  body: z.string(),
  storedAt: z.number(),
  maxAgeMs: z.number().min(0),
});

/**
 * Why `dir` may not hold the cache, or null when it may: it must be a real folder (not a symlink), owned by this user
 * and writable by no one else. A missing folder is created with mode 0700, as are missing parents.
 */
function refusal(dir: string): string | null {
  let st;
  try {
    // Made only when nothing is there: whatever is there (a file, a link) is judged below as it is.
    if (!fs.lstatSync(dir, { throwIfNoEntry: false })) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    st = fs.lstatSync(dir);
  } catch (e) {
    return `cannot create it (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (!st.isDirectory()) return st.isSymbolicLink() ? 'it is a symbolic link' : 'it is not a folder';
  const uid = process.getuid?.();
  if (uid === undefined) return null; // Windows: no owner or mode bits to check; the temporary folder is per user there
  if (st.uid !== uid) return `it is owned by uid ${st.uid}, not ${uid}`;
  if ((st.mode & 0o022) !== 0) return `others may write to it (mode ${(st.mode & 0o777).toString(8)})`;
  return null;
}

/**
 * The disk cache in `dir`, or why the folder may not be used. Entries are read without following a symlink and only
 * when they pass their checks; they are written to a new file created exclusively (O_CREAT|O_EXCL, so nothing
 * planted at that name is followed) and renamed into place.
 */
export function openDiskCache(dir: string): { cache?: EtagCache; refused?: string } {
  const why = refusal(dir);
  if (why) return { refused: `not using the cache folder ${dir}: ${why}` };
  const file = (url: string) => path.join(dir, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.json`);
  const cache: EtagCache = {
    get(url) {
      let fd: number | undefined;
      try {
        fd = fs.openSync(file(url), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
        const st = fs.fstatSync(fd);
        // An entry holds one body (at most MAX_BODY_BYTES) as a JSON string: anything much larger is not one.
        if (!st.isFile() || st.size > MAX_BODY_BYTES * 2) return undefined;
        const { url: storedFor, ...entry } = StoredEntry.parse(JSON.parse(fs.readFileSync(fd, 'utf8')));
        return storedFor === url ? entry : undefined;
      } catch {
        return undefined;
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    },
    set(url, entry) {
      const tmp = `${file(url)}.tmp`;
      try {
        fs.writeFileSync(tmp, JSON.stringify({ url, ...entry }), { flag: 'wx', mode: 0o600 });
        fs.renameSync(tmp, file(url));
      } catch (e) {
        // Another call is writing, or something was left or planted at that name: it is never opened; one older than
        // a minute is removed (unlink removes a link, not what it names) so the next call can write.
        try {
          if (
            (e as NodeJS.ErrnoException).code === 'EEXIST' &&
            Date.now() - fs.lstatSync(tmp).mtimeMs > LEFTOVER_TMP_MS
          )
            fs.unlinkSync(tmp);
        } catch {
          // a cache that cannot be written only costs a request
        }
      }
    },
  };
  return { cache };
}
