// Wiring: the S3 state store and sink for a build run, from the environment (variables: builder/s3/config.ts).
// Imported by main.ts only for S3 runs, so a local build never loads the AWS SDK.
import { createS3Sink } from './publish/s3-sink.ts';
import type { Sink } from './publish/sink.ts';
import { createS3Client } from './s3/client.ts';
import { requireS3Config } from './s3/config.ts';
import { createS3StateStore } from './state/s3-store.ts';
import type { StateStore } from './state/store.ts';

/**
 * Throws ConfigError with the configuration problem when the environment is incomplete. `client` overrides the S3
 * client's timeouts (the soak injects stalled requests and cannot wait the production 30 s for each).
 */
export function createS3Targets(
  env: Readonly<Record<string, string | undefined>>,
  now: () => Date,
  client: Parameters<typeof createS3Client>[1] = {},
): { store: StateStore; sink: Sink } {
  const { bucket, prefix, stateKey, lockKey, manifestKey, deleteAfterMs, listEvery, ...cfg } = requireS3Config(env);
  const s3 = createS3Client(cfg, client);
  return {
    store: createS3StateStore({ client: s3, bucket, key: stateKey, lockKey, publicPrefix: prefix }),
    sink: createS3Sink({ client: s3, bucket, prefix, manifestKey, deleteAfterMs, listEvery, now }),
  };
}
