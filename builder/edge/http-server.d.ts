// http-server 14 ships no types; this covers what the preview uses (a string `cache` is used verbatim).
declare module 'http-server' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';
  export interface Options {
    root: string;
    cache: string;
    showDir: 'false';
    autoIndex: 'false';
    before: Array<(req: IncomingMessage, res: ServerResponse & { emit(event: 'next'): boolean }) => void>;
  }
  const _default: { createServer(options: Options): { server: Server } };
  export default _default;
}
