// http-server 14 ships no types; this covers what the preview uses (a string `cache` is used verbatim).
declare module 'http-server' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';
  export interface Options {
    root?: string;
    cache?: number | string;
    showDir?: boolean | 'false';
    autoIndex?: boolean | 'false';
    headers?: Record<string, string>;
    before?: Array<(req: IncomingMessage, res: ServerResponse & { emit(event: 'next'): boolean }) => void>;
  }
  export interface HttpServer {
    server: Server;
    listen(port: number, host: string, cb?: () => void): void;
    close(): void;
  }
  export function createServer(options?: Options): HttpServer;
  const _default: { createServer: typeof createServer };
  export default _default;
}
