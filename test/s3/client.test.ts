// The project's S3 client (builder/s3/client.ts) against loopback HTTP servers that misbehave on purpose: what it
// retries, what it does not, and that a silent server cannot hang a run. Its requests to a real radosgw are covered by
// test/s3/sink.test.ts, state-store.test.ts and the storage fault suite.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { createS3Client, describeS3Error } from '../../builder/s3/client.ts';

const credentials = { accessKeyId: 'loopback-key', secretAccessKey: 'loopback-secret' };
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const put = new PutObjectCommand({
  Bucket: 'bucket',
  Key: 'site/api/en/latest.json',
  Body: '{"ok":true}',
  ContentType: 'application/json; charset=utf-8',
});

const s3Error = (res: ServerResponse, status: number, code: string) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code} here</Message></Error>`);
};

describe('createS3Client', () => {
  it('retries 5xx and SlowDown, and lands on the third attempt', async () => {
    let requests = 0;
    const endpoint = await listen((_req, res) => {
      requests++;
      if (requests === 1) return s3Error(res, 500, 'InternalError');
      if (requests === 2) return s3Error(res, 503, 'SlowDown');
      res.writeHead(200, { etag: '"e3"' });
      res.end();
    });
    const r = await createS3Client({ region: 'us-east-1', endpoint }, { credentials }).send(put);
    expect(r.ETag).toBe('"e3"');
    expect(requests).toBe(3);
  });

  it('does not retry a refusal, and names S3 code and status in the error', async () => {
    let requests = 0;
    const endpoint = await listen((_req, res) => {
      requests++;
      s3Error(res, 403, 'AccessDenied');
    });
    const err = await createS3Client({ region: 'us-east-1', endpoint }, { credentials })
      .send(put)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(requests).toBe(1);
    expect(err).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect(describeS3Error('publish/s3', 'PUT', 'bucket', 'site/api/en/latest.json', err).message).toBe(
      '[publish/s3] PUT s3://bucket/site/api/en/latest.json -> 403 AccessDenied: AccessDenied here',
    );
  });

  it('gives up on a server that takes the request in and never answers, after its attempts, instead of hanging', async () => {
    let requests = 0;
    const endpoint = await listen(() => {
      requests++; // and never answers
    });
    const t0 = performance.now();
    const err = await createS3Client({ region: 'us-east-1', endpoint }, { credentials, idleMs: 300 })
      .send(put)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toMatchObject({ name: 'TimeoutError' });
    expect(requests).toBe(3);
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});
