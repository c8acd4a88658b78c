// The S3 state store and sink for a build run, wired from the environment (see s3-config.ts for the variables).
import { createS3StateStore } from '../state/s3-store.ts';
import type { StateStore } from '../state/store.ts';
import { createS3Client, s3ConfigFromEnv } from './s3-config.ts';
import { createS3Sink } from './s3-sink.ts';
import type { Sink } from './sink.ts';

/** Throws with the configuration problem when the environment is incomplete: a run cannot start without it. */
export function createS3Targets(env: Readonly<Record<string, string | undefined>>, now: () => Date = () => new Date()): { store: StateStore; sink: Sink } {
  const parsed = s3ConfigFromEnv(env);
  if (!parsed.ok) throw new Error(parsed.error);
  const cfg = parsed.config;
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
      now,
    }),
  };
}
