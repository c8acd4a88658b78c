// A CloudFront KeyValueStore API on loopback for the edge-store tests: the four calls the writer makes
// (DescribeKeyValueStore, ListKeys with paging, UpdateKeys under If-Match), with the service's ETag discipline
// (409 ConflictException on a stale ETag) and a check that every request is SigV4A-signed as the real API requires.
import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LookupFunction, AddressInfo } from 'node:net';
import type { CloudFrontKeyValueStoreClientConfig } from '@aws-sdk/client-cloudfront-keyvaluestore';

export interface KvsServer {
  endpoint: string;
  arn: string;
  data: Map<string, string>;
  /** Every request seen, as `METHOD path`. */
  calls: string[];
  /** Runs `fn` once, just before the next UpdateKeys is judged: a concurrent writer's change landing first. */
  beforeNextUpdate(fn: () => void): void;
  close(): Promise<void>;
}

const PAGE = 10;

export async function startKvsServer(
  arn = 'arn:aws:cloudfront::123456789012:key-value-store/3f6c7f2a-0b9e-4d2c-9d51-6b1c5f0a8e11',
): Promise<KvsServer> {
  const data = new Map<string, string>();
  const calls: string[] = [];
  let version = 1;
  let pendingHook: (() => void) | null = null;
  const etag = () => `ETVER${version}`;
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, type: string, message: string) =>
    send(res, status, { Message: message }, { 'x-amzn-errortype': type });
  const size = () => [...data].reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    calls.push(`${req.method} ${url.pathname}`);
    if (!/^AWS4-ECDSA-P256-SHA256 /.test(String(req.headers.authorization ?? '')))
      return error(res, 403, 'AccessDeniedException', 'not SigV4A-signed');
    const base = `/key-value-stores/${encodeURIComponent(arn)}`;
    if (url.pathname !== base && url.pathname !== `${base}/keys`)
      return error(res, 404, 'ResourceNotFoundException', `no store at ${url.pathname}`);
    if (req.method === 'GET' && url.pathname === base) {
      return send(
        res,
        200,
        { ItemCount: data.size, TotalSizeInBytes: size(), KvsARN: arn, Created: 1_763_000_000 },
        { etag: etag() },
      );
    }
    if (req.method === 'GET') {
      const keys = [...data.keys()].sort();
      const start = Number(url.searchParams.get('NextToken') ?? '0');
      const max = Number(url.searchParams.get('MaxResults') ?? PAGE);
      const items = keys.slice(start, start + Math.min(max, PAGE)).map((k) => ({ Key: k, Value: data.get(k) }));
      const next = start + items.length < keys.length ? String(start + items.length) : undefined;
      return send(res, 200, { Items: items, ...(next ? { NextToken: next } : {}) });
    }
    if (req.method === 'POST') {
      const hook = pendingHook;
      pendingHook = null;
      hook?.();
      if (req.headers['if-match'] !== etag()) return error(res, 409, 'ConflictException', 'the ETag does not match');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        Puts?: { Key: string; Value: string }[];
        Deletes?: { Key: string }[];
      };
      if ((body.Puts?.length ?? 0) + (body.Deletes?.length ?? 0) > 50)
        return error(res, 400, 'ValidationException', 'too many keys in one call');
      for (const p of body.Puts ?? []) data.set(p.Key, p.Value);
      for (const d of body.Deletes ?? []) data.delete(d.Key);
      version++;
      return send(res, 200, { ItemCount: data.size, TotalSizeInBytes: size() }, { etag: etag() });
    }
    return error(res, 405, 'ValidationException', 'method');
  }

  const server: Server = createServer(
    (req, res) => void handle(req, res).catch((err: Error) => error(res, 500, 'InternalServerException', err.message)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    arn,
    data,
    calls,
    beforeNextUpdate: (fn) => {
      pendingHook = () => {
        fn();
        version++;
      };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Loopback resolves every name to 127.0.0.1: the SDK puts the account id in front of the endpoint's host. */
const toLoopback: LookupFunction = (_host, options, callback) => {
  if ((options as { all?: boolean }).all)
    (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  else callback(null, '127.0.0.1', 4);
};

/**
 * A real SDK client for the loopback server. The SDK addresses `<account>.<endpoint host>` (the KeyValueStore API
 * lives under the account's own host name), so the server listens on `localhost` and every name resolves to it.
 */
export function kvsClientConfig(server: KvsServer): CloudFrontKeyValueStoreClientConfig {
  return {
    endpoint: server.endpoint.replace('127.0.0.1', 'localhost'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
    maxAttempts: 1,
    // The SDK builds its Node handler from these options.
    requestHandler: { httpAgent: new Agent({ lookup: toLoopback } as ConstructorParameters<typeof Agent>[0]) },
  };
}
