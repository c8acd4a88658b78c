// Classifying what the S3 SDK throws, and turning it into the project's own errors.
import { ConflictError, StorageError } from '../errors.ts';

export function httpStatusOf(err: unknown): number | null {
  const status = (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : null;
}

export function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return httpStatusOf(err) === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

/** A lost conditional write: our ConflictError, 412 Precondition Failed, or AWS's 409 when two conditional writes overlap. */
export function isConditionFailure(err: unknown): boolean {
  if (err instanceof ConflictError) return true;
  const status = httpStatusOf(err);
  const name = (err as { name?: string } | null)?.name;
  return status === 412 || name === 'PreconditionFailed' || (status === 409 && name === 'ConditionalRequestConflict');
}

/** `[where] VERB s3://bucket/key -> 503 SlowDown`, as a StorageError carrying the SDK error as its cause. */
export function describeS3Error(where: string, verb: string, bucket: string, key: string, err: unknown): StorageError {
  const status = httpStatusOf(err);
  const name = (err as { name?: string } | null)?.name ?? 'Error';
  const message = (err as { message?: string } | null)?.message ?? String(err);
  return new StorageError(
    where,
    `${verb} s3://${bucket}/${key} -> ${status ?? 'no response'} ${name}${message && message !== name ? `: ${message}` : ''}`,
    { cause: err },
  );
}
