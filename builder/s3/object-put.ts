// A plain PutObject for the S3 sink's uploads, signed with the SDK's own SigV4 signer and sent over node:http(s),
// without the SDK's middleware stack: per PUT the stack (endpoint rules, schema serde, log filtering, a spread of the
// whole client config) cost ~2.6 ms of CPU against ~0.7 ms here, measured on radosgw (BENCHMARKS.md section 3), and
// on a small machine that CPU is taken from the S3 server. Everything else (the manifest and its conditional PUTs,
// listings, deletes, the state store) stays on the SDK. What the client was configured with still holds: its
// credentials (the SDK's chain), region, endpoint and path style (through the client's own endpoint rules, resolved
// once), its number of attempts, and the project's idle and connect timeouts. The request itself goes through
// net/exchange.ts, the project's one HTTP client.
import type { S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import { closeAgents, createAgents, exchange } from '../net/exchange.ts';
import { S3_CONNECT_TIMEOUT_MS, S3_IDLE_TIMEOUT_MS } from './client.ts';
import { bareEtag } from './conditional.ts';

export interface ObjectPut {
  /** Object key, made of [A-Za-z0-9._/-] only (assertSafeKey): used in the path as it is. */
  key: string;
  body: Buffer;
  /** Hex SHA-256 of the body: SigV4's payload hash, so the body is not hashed again. */
  sha256: string;
  contentType: string;
  cacheControl: string;
  contentLanguage?: string;
  metadata?: Record<string, string>;
}

export interface ObjectPutter {
  /** PUTs one object and returns its bare ETag; a failure after the client's attempts is thrown like an SDK error. */
  put(input: ObjectPut): Promise<string>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/** SDK-like error: `name` is S3's error code, `$metadata.httpStatusCode` the status (what builder/s3/errors.ts reads). */
function s3Error(status: number, body: string): Error {
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(body)?.[1] ?? `Http${status}`;
  const message = /<Message>([^<]{0,500})<\/Message>/.exec(body)?.[1] ?? '';
  return Object.assign(new Error(message || code), { name: code, $metadata: { httpStatusCode: status } });
}

/** Retried like the SDK's standard mode: no answer (dropped, timed out), 5xx, 429 and S3's throttling codes. */
function retryable(err: unknown): boolean {
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status === undefined) return true;
  return status >= 500 || status === 429 || (err as { name?: string }).name === 'SlowDown';
}

/** The SDK's standard backoff: a random delay up to 100 ms × 2^attempt, at most 20 s. */
const backoffMs = (attempt: number) => Math.random() * Math.min(20_000, 100 * 2 ** attempt);

/** At most this much of an error answer is read (an S3 error document is well under 1 KiB). */
const ERROR_BODY_MAX_BYTES = 16 * 1024;

export async function createObjectPutter(client: S3Client, bucket: string, opts: { concurrency: number; idleMs?: number; connectMs?: number }): Promise<ObjectPutter> {
  const config = client.config;
  const region = await config.region();
  const custom = config.endpoint ? await config.endpoint() : null;
  const endpoint = config.endpointProvider({
    Bucket: bucket,
    Region: region,
    ForcePathStyle: config.forcePathStyle === true,
    UseFIPS: await config.useFipsEndpoint(),
    UseDualStack: await config.useDualstackEndpoint(),
    Accelerate: config.useAccelerateEndpoint === true,
    ...(custom ? { Endpoint: `${custom.protocol}//${custom.hostname}${custom.port ? `:${custom.port}` : ''}${custom.path}` } : {}),
  });
  const base = new URL(endpoint.url.href.endsWith('/') ? endpoint.url.href : `${endpoint.url.href}/`);
  const scheme = (endpoint.properties as { authSchemes?: { signingRegion?: string; signingName?: string }[] } | undefined)?.authSchemes?.[0];
  const signer = new SignatureV4({ credentials: config.credentials, region: scheme?.signingRegion ?? region, service: scheme?.signingName ?? 's3', sha256: config.sha256, uriEscapePath: false, applyChecksum: false });
  const attempts = Math.max(1, await config.maxAttempts());
  const agents = createAgents({ maxSockets: opts.concurrency });
  const port = base.port ? Number(base.port) : base.protocol === 'https:' ? 443 : 80;
  const idleMs = opts.idleMs ?? S3_IDLE_TIMEOUT_MS;
  const connectMs = opts.connectMs ?? S3_CONNECT_TIMEOUT_MS;

  async function once(input: ObjectPut): Promise<string> {
    const path = base.pathname + input.key;
    const headers: Record<string, string> = {
      host: base.host,
      'content-type': input.contentType,
      'cache-control': input.cacheControl,
      'content-length': String(input.body.length),
      'x-amz-content-sha256': input.sha256,
    };
    if (input.contentLanguage !== undefined) headers['content-language'] = input.contentLanguage;
    for (const [k, v] of Object.entries(input.metadata ?? {})) headers[`x-amz-meta-${k}`] = v;
    const signed = await signer.sign({ method: 'PUT', protocol: base.protocol, hostname: base.hostname, port, path, query: {}, headers });
    // Connecting gets `connectMs`; after that, `idleMs` of silence ends the attempt (a large upload that keeps moving
    // is never cut off).
    const res = await exchange({ url: `${base.origin}${path}`, method: 'PUT', headers: signed.headers, body: input.body, agents, connectMs, idleMs });
    if (res.statusCode >= 200 && res.statusCode < 300) {
      const etag = bareEtag(res.headers.etag);
      return new Promise<string>((resolve, reject) => {
        res.body.on('end', () => resolve(etag)).on('error', reject).resume();
      });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body as AsyncIterable<Buffer>) {
      if (size < ERROR_BODY_MAX_BYTES) chunks.push(c);
      size += c.length;
    }
    throw s3Error(res.statusCode, Buffer.concat(chunks).toString('utf8').slice(0, ERROR_BODY_MAX_BYTES));
  }

  return {
    async put(input) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await once(input);
        } catch (err) {
          if (attempt + 1 >= attempts || !retryable(err)) throw err;
          await new Promise((r) => setTimeout(r, backoffMs(attempt)));
        }
      }
    },
    close: () => closeAgents(agents),
  };
}
