// Local preview: http-server over dist/ with the shared router in `before`, answering exactly as the CDN does.
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import httpServer from 'http-server';
import { readFile } from 'node:fs/promises';
import { CACHE_CONTROL, JSON_CONTENT_TYPE, NOT_FOUND_CONTENT_LANGUAGE, NOT_FOUND_KEY } from '../contract.ts';
import { baseHeaders, errorResponse, route } from './route.ts';

type UnionResponse = ServerResponse & { emit(event: 'next'): boolean };

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

function send(req: IncomingMessage, res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  const buf = Buffer.from(body, 'utf8');
  res.writeHead(status, { ...headers, ...(status === 204 ? {} : { 'content-length': String(buf.length) }) });
  res.end(req.method === 'HEAD' || status === 204 ? undefined : buf);
}

/** The `before` middleware: route, answer errors, or hand the object key to http-server's file serving. */
export function createRoutingMiddleware(root: string) {
  const absRoot = path.resolve(root);
  return function routing(req: IncomingMessage, res: UnionResponse): void {
    const raw = req.url ?? '/';
    const qi = raw.indexOf('?');
    const result = route({ method: req.method ?? 'GET', uri: qi === -1 ? raw : raw.slice(0, qi), query: qi === -1 ? '' : raw.slice(qi + 1) });
    if (result.kind === 'response') return send(req, res, result.status, result.headers, result.body);
    const file = path.join(absRoot, result.key);
    void isFile(file).then(async (exists) => {
      if (!exists) {
        // As at the CDN: a missing object is answered with the stored not-found document, status 404.
        const body = await readFile(path.join(absRoot, NOT_FOUND_KEY), 'utf8').catch(
          () => '{"error":{"status":404,"code":"not_found","message":"The requested resource does not exist."},"meta":{"lang":null}}',
        );
        return send(req, res, 404, baseHeaders(NOT_FOUND_CONTENT_LANGUAGE), body);
      }
      for (const [k, v] of Object.entries(result.headers)) res.setHeader(k, v);
      // http-server appends its own charset spelling; the contract fixes ours.
      const setHeader = res.setHeader.bind(res);
      res.setHeader = ((name: string, value: number | string | readonly string[]) =>
        setHeader(name, name.toLowerCase() === 'content-type' ? JSON_CONTENT_TYPE : value)) as typeof res.setHeader;
      req.url = '/' + result.key;
      res.emit('next');
    }, () => send(req, res, 500, baseHeaders('en'), JSON.stringify({ error: { status: 500, code: 'internal', message: 'preview failed to read dist/' } })));
  };
}

export interface PreviewServer {
  url: string;
  close(): Promise<void>;
}

export async function startPreview(opts: { root: string; port: number; host?: string }): Promise<PreviewServer> {
  const server = httpServer.createServer({
    root: opts.root,
    cache: CACHE_CONTROL,
    showDir: 'false',
    autoIndex: 'false',
    before: [createRoutingMiddleware(opts.root)],
  });
  const host = opts.host ?? '127.0.0.1';
  const inner = server.server;
  // Requests Node's parser refuses (a raw non-ASCII byte in the path, say) never reach the router; answer them
  // with the same JSON 400 the router gives a bad path instead of Node's bare one.
  inner.on('clientError', (_err, socket) => {
    if (!socket.writable) return socket.destroy();
    const r = errorResponse(400, 'en', 'invalid_path', {});
    const body = r.kind === 'response' ? r.body : '';
    const head = Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`).join('\r\n');
    socket.end(`HTTP/1.1 400 Bad Request\r\n${head}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  await new Promise<void>((resolve, reject) => {
    inner.once('error', reject);
    inner.listen(opts.port, host, () => resolve());
  });
  const { port } = inner.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        inner.closeAllConnections?.();
        inner.close(() => resolve());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8080' }, dir: { type: 'string', default: 'dist' }, host: { type: 'string', default: '127.0.0.1' } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`preview: --port wants a number from 0 to 65535, got ${JSON.stringify(values.port)}`);
    process.exit(2);
  }
  if (!(await isFile(path.join(values.dir, 'api/index.json')))) {
    console.error(`preview: ${values.dir}/api/index.json is missing; run \`npm run build\` first`);
    process.exit(2);
  }
  const p = await startPreview({ root: values.dir, port, host: values.host });
  console.log(`preview of ${values.dir}/ on ${p.url}/api/latest (Ctrl-C to stop)`);
}
