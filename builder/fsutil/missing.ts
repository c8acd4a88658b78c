// A file or folder that is not there yet is a normal answer for the local stores, the backups and data/: one rule.

/** What `read` gives, or `absent` when the file or folder it reads does not exist (any other error is thrown). */
export const unlessMissing = <T, A>(read: Promise<T>, absent: A): Promise<T | A> =>
  read.catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return absent;
    throw err;
  });

/** `read()`, or `fallback` when it throws (a file that is missing or cannot be read or parsed). */
export function orElse<T, F = T>(read: () => T, fallback: F): T | F {
  try {
    return read();
  } catch {
    return fallback;
  }
}
