import { describe, expect, it } from 'vitest';
import { DELETE_AFTER_MS, s3ConfigFromEnv } from '../../builder/publish/s3-config.ts';

describe('s3ConfigFromEnv', () => {
  it('applies the defaults around a bucket and a region', () => {
    expect(s3ConfigFromEnv({ RESET_S3_BUCKET: 'b', AWS_REGION: 'eu-west-1' })).toEqual({
      ok: true,
      config: {
        bucket: 'b',
        prefix: '',
        stateKey: 'state/state.json',
        lockKey: 'state/run.lock',
        manifestKey: 'state/publish-manifest.json',
        backupPrefix: 'backups/',
        region: 'eu-west-1',
        endpoint: null,
        deleteAfterMs: DELETE_AFTER_MS,
        concurrency: 8,
      },
    });
  });

  it('normalises prefixes and accepts a custom endpoint without a region', () => {
    const r = s3ConfigFromEnv({ RESET_S3_BUCKET: 'b', RESET_S3_PREFIX: 'v1', RESET_S3_BACKUP_PREFIX: 'bk', RESET_S3_ENDPOINT: 'http://127.0.0.1:7480' });
    expect(r).toMatchObject({ ok: true, config: { prefix: 'v1/', backupPrefix: 'bk/', region: 'us-east-1', endpoint: 'http://127.0.0.1:7480' } });
  });

  it.each([
    [{}, /RESET_S3_BUCKET is not set/],
    [{ RESET_S3_BUCKET: 'b' }, /AWS_REGION is not set/],
    [{ RESET_S3_BUCKET: 'b', AWS_REGION: 'r', RESET_S3_ENDPOINT: 'ftp://x' }, /RESET_S3_ENDPOINT must be an http/],
    [{ RESET_S3_BUCKET: 'b', AWS_REGION: 'r', RESET_S3_PREFIX: 'site/', RESET_S3_STATE_KEY: 'site/state.json' }, /RESET_S3_STATE_KEY.*public prefix/],
    [{ RESET_S3_BUCKET: 'b', AWS_REGION: 'r', RESET_S3_BACKUP_PREFIX: 'api/backups/' }, /RESET_S3_BACKUP_PREFIX.*public API root/],
    [{ RESET_S3_BUCKET: 'b', AWS_REGION: 'r', RESET_S3_DELETE_AFTER_MS: 'soon' }, /RESET_S3_DELETE_AFTER_MS must be/],
  ])('refuses %j', (env, message) => {
    const r = s3ConfigFromEnv(env);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });

  it('never reads credentials itself', () => {
    const r = s3ConfigFromEnv({ RESET_S3_BUCKET: 'b', AWS_REGION: 'r', AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' });
    expect(JSON.stringify(r)).not.toMatch(/"k"|"s"/);
  });
});
