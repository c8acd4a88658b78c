// Local preview: http-server over dist/ with the shared router in `before`, answering exactly as the CDN does, clock
// included: it reads the edge store the build wrote next to the documents (edge-store.json, the KeyValueStore's
// content) and routes with the real clock or a fixed one (`--now`).
import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import httpServer from 'http-server';
import {
  CACHE_CONTROL,
  EDGE_STORE_FILE,
  NOT_FOUND_CONTENT_LANGUAGE,
  NOT_FOUND_FALLBACK,
  NOT_FOUND_KEY,
  ZONED_INSTANT_PATTERN,
} from '../contract.ts';
import { orElse } from '../fsutil/missing.ts';
import { baseHeaders, edgeContextFrom, errorResponse, route } from './route.ts';

/** Whether a regular file is at `file` (not missing, not a directory, readable). */
const isFile = (file: string) => orElse(() => statSync(file, { throwIfNoEntry: false })?.isFile() ?? false, false);

/**
 * The `before` middleware: route with the shared router; answer its responses and missing objects here, and hand
 * every object to http-server's file serving (its 200, 304, 206 and 416) with the contract's headers.
 */
function routing(root: string, now: () => number) {
  const prefix = path.join(path.resolve(root), path.sep);
  return function (req: IncomingMessage, res: ServerResponse & { emit(event: 'next'): boolean }): void {
    const [uri = '/', query = ''] = (req.url ?? '/').split(/\?(.*)/s);
    // The store as the edge reads it, read on every request (a build rewrites it atomically): a missing or unreadable
    // file is an empty store, as an empty KeyValueStore is.
    const store = orElse<Record<string, string>>(() => JSON.parse(readFileSync(prefix + EDGE_STORE_FILE, 'utf8')), {});
    let r = route({ method: req.method ?? 'GET', uri, query }, edgeContextFrom(store, uri, now()));
    // As at the CDN: a missing object is answered with the stored not-found document, status 404.
    if (r.kind === 'object' && !isFile(prefix + r.key)) {
      const body = orElse(() => readFileSync(prefix + NOT_FOUND_KEY, 'utf8'), NOT_FOUND_FALLBACK);
      r = { kind: 'response', status: 404, headers: baseHeaders(NOT_FOUND_CONTENT_LANGUAGE), body };
    }
    if (r.kind === 'response') {
      const buf = Buffer.from(r.body, 'utf8');
      res.writeHead(r.status, { ...r.headers, ...(r.status === 204 ? {} : { 'content-length': String(buf.length) }) });
      res.end(req.method === 'HEAD' || r.status === 204 ? undefined : buf);
      return;
    }
    for (const k in r.headers) res.setHeader(k, r.headers[k]!);
    // http-server sets its own spelling of the content type (with a charset), through setHeader or, for its 206,
    // writeHead's headers; the contract fixes ours.
    const contentType = r.headers['content-type']!;
    const setHeader = res.setHeader.bind(res);
    res.setHeader = ((name: string, value: number | string | readonly string[]) =>
      setHeader(name, name.toLowerCase() === 'content-type' ? contentType : value)) as typeof res.setHeader;
    const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, unknown>) => ServerResponse;
    res.writeHead = ((status: number, headers?: Record<string, unknown>) => {
      for (const k of Object.keys(headers ?? {})) if (k.toLowerCase() === 'content-type') headers![k] = contentType;
      return writeHead(status, headers);
    }) as typeof res.writeHead;
    req.url = '/' + r.key;
    res.emit('next');
  };
}

export interface PreviewServer {
  url: string;
  close(): Promise<void>;
}

/** `now`: the clock the router sees, epoch ms; the real one by default. */
export async function startPreview(opts: {
  root: string;
  port: number;
  host?: string;
  now?: () => number;
}): Promise<PreviewServer> {
  const { server } = httpServer.createServer({
    root: opts.root,
    cache: CACHE_CONTROL,
    showDir: 'false',
    autoIndex: 'false',
    before: [routing(opts.root, opts.now ?? Date.now)],
  });
  const host = opts.host ?? '127.0.0.1';
  // Requests Node's parser refuses (a raw non-ASCII byte in the path, say) never reach the router; answer them
  // with the same JSON 400 the router gives a bad path instead of Node's bare one.
  server.on('clientError', (_err, socket) => {
    if (!socket.writable) return socket.destroy();
    const { headers, body } = errorResponse(400, 'en', 'invalid_path', {});
    const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.end(
      `HTTP/1.1 400 Bad Request\r\n${head.join('')}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      dir: { type: 'string', default: 'dist' },
      host: { type: 'string', default: '127.0.0.1' },
      now: { type: 'string' },
    },
  });
  const fail = (message: string): never => {
    console.error(`preview: ${message}`);
    process.exit(2);
  };
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--port wants a number from 0 to 65535, got ${JSON.stringify(values.port)}`);
  const fixed = values.now === undefined ? null : Date.parse(values.now);
  // Without a zone the instant would be read in the machine's time zone.
  if (fixed !== null && (Number.isNaN(fixed) || !ZONED_INSTANT_PATTERN.test(values.now ?? '')))
    fail(`--now wants an ISO 8601 instant with a zone such as 2026-11-21T12:10:00Z, got ${JSON.stringify(values.now)}`);
  if (!isFile(path.join(values.dir, 'api/index.json')))
    fail(`${values.dir}/api/index.json is missing; run \`npm run build\` first`);
  const now = fixed === null ? Date.now : () => fixed;
  const p = await startPreview({ root: values.dir, port, host: values.host, now });
  const clock = fixed === null ? 'the real clock' : `the fixed clock ${new Date(fixed).toISOString()}`;
  console.log(`preview of ${values.dir}/ on ${p.url}/api/latest with ${clock} (Ctrl-C to stop)`);
}
