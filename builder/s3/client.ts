// The S3 client every S3 part of the project (state store, sink, backups, benches) uses.
import { S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from './config.ts';

/**
 * A request whose connection stays silent this long fails (and is retried by the SDK) instead of hanging the run:
 * the SDK has no timeout by default, and a stalled S3 server (a radosgw whose OSD is full accepts requests and never
 * answers them) would otherwise hold the run lock until it expires. It is an idle timeout, so a large upload that
 * keeps moving is never cut off.
 */
export const S3_IDLE_TIMEOUT_MS = 30_000;
export const S3_CONNECT_TIMEOUT_MS = 5_000;

/**
 * `credentials` defaults to the SDK's own chain (environment, profile, instance role); the publish bench passes
 * radosgw's test keys.
 */
export function createS3Client(
  cfg: Pick<S3Config, 'region' | 'endpoint'>,
  opts: { idleMs?: number; connectMs?: number; credentials?: { accessKeyId: string; secretAccessKey: string } } = {},
): S3Client {
  return new S3Client({
    region: cfg.region,
    requestHandler: {
      socketTimeout: opts.idleMs ?? S3_IDLE_TIMEOUT_MS,
      connectionTimeout: opts.connectMs ?? S3_CONNECT_TIMEOUT_MS,
    },
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    ...(cfg.endpoint !== null
      ? {
          endpoint: cfg.endpoint,
          forcePathStyle: true,
          // Older S3-compatible servers reject or mis-handle the SDK's default CRC checksums.
          requestChecksumCalculation: 'WHEN_REQUIRED' as const,
          responseChecksumValidation: 'WHEN_REQUIRED' as const,
        }
      : {}),
  });
}
