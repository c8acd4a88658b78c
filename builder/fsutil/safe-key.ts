// The one rule for object keys and relative paths written anywhere (directory, bucket, backup).
import { DataError } from '../errors.ts';

const SAFE_KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

export const isSafeKey = (key: string): boolean =>
  SAFE_KEY.test(key) && !key.split('/').some((p) => p === '..' || p === '.');

export function assertSafeKey(key: string, where = 'publish'): void {
  if (!isSafeKey(key)) throw new DataError(where, `refusing unsafe object key ${JSON.stringify(key)}`);
}
