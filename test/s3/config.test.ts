import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client, getObject } from '../../builder/s3/client.ts';
import { DEFAULT_LIST_EVERY, DELETE_AFTER_MS, requireS3Config } from '../../builder/s3/config.ts';

describe('requireS3Config', () => {
  it('applies the defaults around a bucket and a region', () => {
    expect(requireS3Config({ RESET_S3_BUCKET: 'b', AWS_REGION: 'eu-west-1' })).toEqual({
      bucket: 'b',
      prefix: '',
      stateKey: 'state/state.json',
      lockKey: 'state/run.lock',
      manifestKey: 'state/publish-manifest.json',
      backupPrefix: 'backups/',
      region: 'eu-west-1',
      endpoint: null,
      deleteAfterMs: DELETE_AFTER_MS,
      listEvery: DEFAULT_LIST_EVERY,
    });
  });

  it('normalises prefixes and accepts a custom endpoint without a region', () => {
    const r = requireS3Config({
      RESET_S3_BUCKET: 'b',
      RESET_S3_PREFIX: 'v1',
      RESET_S3_BACKUP_PREFIX: 'bk',
      RESET_S3_ENDPOINT: 'http://127.0.0.1:7480',
    });
    expect(r).toMatchObject({
      prefix: 'v1/',
      backupPrefix: 'bk/',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:7480',
    });
  });

  it.each([
    [{}, /RESET_S3_BUCKET is not set/],
    [{ RESET_S3_BUCKET: 'b' }, /AWS_REGION is not set/],
    [{ RESET_S3_BUCKET: 'b', AWS_REGION: 'r', RESET_S3_ENDPOINT: 'ftp://x' }, /RESET_S3_ENDPOINT must be an http/],
    [
      { RESET_S3_BUCKET: 'b', AWS_REGION: 'r', RESET_S3_PREFIX: 'site/', RESET_S3_STATE_KEY: 'site/state.json' },
      /RESET_S3_STATE_KEY.*public prefix/,
    ],
    [
      { RESET_S3_BUCKET: 'b', AWS_REGION: 'r', RESET_S3_BACKUP_PREFIX: 'api/backups/' },
      /RESET_S3_BACKUP_PREFIX.*public API root/,
    ],
    [{ RESET_S3_BUCKET: 'b', AWS_REGION: 'r', RESET_S3_DELETE_AFTER_MS: 'soon' }, /RESET_S3_DELETE_AFTER_MS must be/],
  ])('refuses %j', (env, message) => {
    expect(() => requireS3Config(env)).toThrow(message);
  });

  it('never reads credentials itself', () => {
    const r = requireS3Config({
      RESET_S3_BUCKET: 'b',
      AWS_REGION: 'r',
      AWS_ACCESS_KEY_ID: 'k',
      AWS_SECRET_ACCESS_KEY: 's',
    });
    expect(JSON.stringify(r)).not.toMatch(/"k"|"s"/);
  });
});

// The production client against loopback servers that misbehave: no radosgw needed, so this runs everywhere.
describe('createS3Client timeouts', () => {
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  const servers: Server[] = [];
  beforeAll(() => {
    // The SDK's default chain reads these; the servers below never check a signature.
    process.env.AWS_ACCESS_KEY_ID = 'loopback-key';
    process.env.AWS_SECRET_ACCESS_KEY = 'loopback-secret';
  });
  afterAll(async () => {
    for (const [k, v] of [
      ['AWS_ACCESS_KEY_ID', saved.id],
      ['AWS_SECRET_ACCESS_KEY', saved.secret],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });
  const listen = async (handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> => {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('fails a request the server takes in and never answers, after the SDK retries it, instead of hanging', async () => {
    // What a radosgw with a full OSD does: it reads the request and goes silent.
    let requests = 0;
    const endpoint = await listen((req) => {
      requests++;
      req.resume();
    });
    const client = createS3Client({ region: 'us-east-1', endpoint }, { idleMs: 300 });
    const t0 = performance.now();
    const err = (await getObject(client, 'bucket', 'state/state.json', 'publish/s3').then(
      () => null,
      (e: unknown) => e,
    )) as Error | null;
    expect((err?.cause as Error | undefined)?.name).toBe('TimeoutError');
    expect(requests).toBe(3); // the SDK's three attempts, each given up after 300 ms of silence
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(err?.message).toMatch(
      /^\[publish\/s3\] GET s3:\/\/bucket\/state\/state\.json -> no response TimeoutError: .*timed out after 300 ms of inactivity/,
    );
  });

  it('lets an answer that keeps moving run longer than the idle timeout', async () => {
    const body = 'x'.repeat(60);
    const endpoint = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length), etag: '"e1"' });
      let sent = 0;
      const tick = setInterval(() => {
        res.write(body.slice(sent, sent + 10));
        sent += 10;
        if (sent >= body.length) {
          clearInterval(tick);
          res.end();
        }
      }, 150);
    });
    const client = createS3Client({ region: 'us-east-1', endpoint }, { idleMs: 300 });
    const t0 = performance.now();
    const got = await getObject(client, 'bucket', 'state/state.json', 'test');
    expect(performance.now() - t0).toBeGreaterThan(600); // six 150 ms gaps: twice the idle timeout in all
    expect(got && Buffer.from(got.body).toString('utf8')).toBe(body);
    expect(got?.etag).toBe('e1');
  });
});
