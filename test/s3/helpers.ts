// Real radosgw for the S3 tests: the endpoint comes from RESET_TEST_S3_ENDPOINT (scripts/rgw.sh start .rgw 7480
// then `source .rgw/env`). Without it the S3 suites are skipped with the reason, except under CI, where a
// missing endpoint is a failure: CI must never pass by silently testing nothing.
import { randomBytes } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { describe, it } from 'vitest';

export const S3_ENDPOINT = process.env.RESET_TEST_S3_ENDPOINT ?? '';
const IN_CI = Boolean(process.env.CI);
export const S3_SKIP_REASON =
  'RESET_TEST_S3_ENDPOINT is not set (install radosgw: apt-get install -y radosgw ceph-mon ceph-osd ceph-mgr; start it: bash scripts/rgw.sh start .rgw 7480 && set -a && source .rgw/env && set +a)';

/** `describe` for suites that need the real S3: skipped with the reason locally, failing under CI. */
export function describeS3(name: string, fn: () => void): void {
  if (S3_ENDPOINT !== '') {
    describe(name, fn);
  } else if (IN_CI) {
    describe(name, () => {
      it('has a real S3 endpoint to test against', () => {
        throw new Error(`[test/s3] CI is set but ${S3_SKIP_REASON}; .ci/run must start radosgw before the tests`);
      });
    });
  } else {
    console.warn(`[test/s3] skipping "${name}": ${S3_SKIP_REASON}`);
    describe.skip(`${name} [skipped: ${S3_SKIP_REASON}]`, fn);
  }
}

export interface ClientHooks {
  /** Called before every command is sent, with its name and input (e.g. to record PUT order). */
  onSend?: (command: string, input: Record<string, unknown>) => void;
  /** Called when a command's response has arrived, before the caller sees it (e.g. to count finished PUTs). */
  onDone?: (command: string, input: Record<string, unknown>) => void;
  /** Every PutObject after this many fails with an injected 503, as if the S3 went away mid-publish. */
  failPutsAfter?: number;
  /** Another endpoint (a proxy in front of radosgw, to watch or break the requests themselves). */
  endpoint?: string;
}

export function createTestClient(hooks: ClientHooks = {}): S3Client {
  const client = new S3Client({
    endpoint: hooks.endpoint ?? S3_ENDPOINT,
    region: process.env.RESET_TEST_S3_REGION ?? 'us-east-1',
    forcePathStyle: true,
    credentials: {
      accessKeyId: process.env.RESET_TEST_S3_ACCESS_KEY_ID ?? 'reset-test-access-key',
      secretAccessKey: process.env.RESET_TEST_S3_SECRET_ACCESS_KEY ?? 'reset-test-secret-key',
    },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 1,
    // A radosgw that stops answering (its OSD gone) fails the request that met it, by name, within a minute, rather
    // than holding a hook until vitest's timeout says only that the hook was slow.
    requestHandler: { socketTimeout: 60_000, connectionTimeout: 10_000 },
  });
  let puts = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '');
      hooks.onSend?.(command, args.input as Record<string, unknown>);
      if (command === 'PutObjectCommand' && hooks.failPutsAfter !== undefined && ++puts > hooks.failPutsAfter) {
        throw Object.assign(new Error('injected failure: S3 unavailable'), {
          name: 'ServiceUnavailable',
          $metadata: { httpStatusCode: 503 },
        });
      }
      const result = await next(args);
      hooks.onDone?.(command, args.input as Record<string, unknown>);
      return result;
    },
    { step: 'initialize', name: 'testHooks' },
  );
  return client;
}

export async function createTestBucket(client: S3Client, label: string): Promise<string> {
  const bucket = `reset-${label}-${randomBytes(4).toString('hex')}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
}

export async function listAllKeys(client: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys.sort();
}

export async function removeTestBucket(client: S3Client, bucket: string): Promise<void> {
  const keys = await listAllKeys(client, bucket);
  // A thousand keys per request: a bucket of a few thousand objects is gone in seconds, not a minute.
  for (let i = 0; i < keys.length; i += 1000) {
    await client.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
      }),
    );
  }
  await client.send(new DeleteBucketCommand({ Bucket: bucket }));
}

export async function readText(client: S3Client, bucket: string, key: string): Promise<string | null> {
  try {
    const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return (await r.Body?.transformToString('utf8')) ?? '';
  } catch (err) {
    if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
    throw err;
  }
}

export async function writeText(client: S3Client, bucket: string, key: string, body: string): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

export async function head(client: S3Client, bucket: string, key: string) {
  return client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
}
