// Wiring: the S3 state store and sink for a build run, from the environment (variables: builder/s3/config.ts).
// Imported by main.ts only for S3 runs, so a local build never loads the AWS SDK.
import { createS3Sink } from './publish/s3-sink.ts';
import type { Sink } from './publish/sink.ts';
import { createS3Client } from './s3/client.ts';
import { requireS3Config } from './s3/config.ts';
import { createS3StateStore } from './state/s3-store.ts';
import type { StateStore } from './state/store.ts';

/** Throws ConfigError with the configuration problem when the environment is incomplete. */
export function createS3Targets(env: Readonly<Record<string, string | undefined>>, now: () => Date): { store: StateStore; sink: Sink } {
  const cfg = requireS3Config(env);
  const client = createS3Client(cfg);
  return {
    store: createS3StateStore({ client, bucket: cfg.bucket, key: cfg.stateKey, lockKey: cfg.lockKey, publicPrefix: cfg.prefix }),
    sink: createS3Sink({
      client,
      bucket: cfg.bucket,
      prefix: cfg.prefix,
      manifestKey: cfg.manifestKey,
      deleteAfterMs: cfg.deleteAfterMs,
      concurrency: cfg.concurrency,
      listEvery: cfg.listEvery,
      listMaxAgeMs: cfg.listMaxAgeMs,
      now,
    }),
  };
}
