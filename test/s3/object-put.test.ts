// The S3 sink's plain signed PUT (builder/s3/object-put.ts) against loopback HTTP servers that misbehave on purpose:
// what it sends, what it retries, and that a silent server cannot hang it. Its uploads to a real radosgw are covered
// by test/s3/sink.test.ts and the storage fault suite.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createS3Client } from '../../builder/s3/client.ts';
import { describeS3Error } from '../../builder/s3/errors.ts';
import { createObjectPutter, type ObjectPut } from '../../builder/s3/object-put.ts';

const credentials = { accessKeyId: 'loopback-key', secretAccessKey: 'loopback-secret' };
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const input: ObjectPut = {
  key: 'site/api/en/latest.json',
  body: Buffer.from('{"ok":true}'),
  sha256: '4062edaf750fb8074e7e83e0c9028c94e32468a8b6f1614774328ef045150f93',
  contentType: 'application/json; charset=utf-8',
  cacheControl: 'public, max-age=30',
  contentLanguage: 'en',
  metadata: { sha256: '4062edaf750fb8074e7e83e0c9028c94e32468a8b6f1614774328ef045150f93' },
};

const s3Error = (res: ServerResponse, status: number, code: string) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code} here</Message></Error>`);
};

describe('createObjectPutter', () => {
  it('sends one signed PUT with the body, the headers and the metadata, to the path-style key, and returns the bare ETag', async () => {
    const seen: { method: string | undefined; url: string | undefined; headers: IncomingMessage['headers']; body: string }[] = [];
    const endpoint = await listen((req, res, body) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(200, { etag: '"abc123"' });
      res.end();
    });
    const putter = await createObjectPutter(createS3Client({ region: 'us-east-1', endpoint }, { credentials }), 'bucket', { concurrency: 2 });
    try {
      expect(await putter.put(input)).toBe('abc123');
    } finally {
      putter.close();
    }
    expect(seen).toHaveLength(1);
    const [r] = seen;
    expect(r).toMatchObject({ method: 'PUT', url: '/bucket/site/api/en/latest.json', body: '{"ok":true}' });
    expect(r!.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'public, max-age=30',
      'content-language': 'en',
      'content-length': '11',
      'x-amz-meta-sha256': input.sha256,
      'x-amz-content-sha256': input.sha256,
    });
    expect(r!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=loopback-key\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=[^,]*x-amz-content-sha256[^,]*, Signature=[0-9a-f]{64}$/);
  });

  it('retries 5xx and SlowDown like the SDK, and lands on the third attempt', async () => {
    let requests = 0;
    const endpoint = await listen((_req, res) => {
      requests++;
      if (requests === 1) return s3Error(res, 500, 'InternalError');
      if (requests === 2) return s3Error(res, 503, 'SlowDown');
      res.writeHead(200, { etag: '"e3"' });
      res.end();
    });
    const putter = await createObjectPutter(createS3Client({ region: 'us-east-1', endpoint }, { credentials }), 'bucket', { concurrency: 2 });
    try {
      expect(await putter.put(input)).toBe('e3');
    } finally {
      putter.close();
    }
    expect(requests).toBe(3);
  });

  it('does not retry a refusal, and fails with S3 code and status as the SDK would', async () => {
    let requests = 0;
    const endpoint = await listen((_req, res) => {
      requests++;
      s3Error(res, 403, 'AccessDenied');
    });
    const putter = await createObjectPutter(createS3Client({ region: 'us-east-1', endpoint }, { credentials }), 'bucket', { concurrency: 2 });
    const err = await putter.put(input).then(
      () => null,
      (e: unknown) => e,
    );
    putter.close();
    expect(requests).toBe(1);
    expect(err).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect(describeS3Error('publish/s3', 'PUT', 'bucket', input.key, err).message).toBe('[publish/s3] PUT s3://bucket/site/api/en/latest.json -> 403 AccessDenied: AccessDenied here');
  });

  it('gives up on a server that takes the request in and never answers, after its attempts, instead of hanging', async () => {
    let requests = 0;
    const endpoint = await listen(() => {
      requests++; // and never answers
    });
    const putter = await createObjectPutter(createS3Client({ region: 'us-east-1', endpoint }, { credentials, idleMs: 300 }), 'bucket', { concurrency: 2, idleMs: 300 });
    const t0 = performance.now();
    const err = await putter.put(input).then(
      () => null,
      (e: unknown) => e,
    );
    putter.close();
    expect(err).toMatchObject({ name: 'TimeoutError' });
    expect(requests).toBe(3);
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});
