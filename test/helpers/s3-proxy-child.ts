// The counting proxy of s3-proxy.ts in a process of its own (started by s3-proxy-process.ts): the publish bench
// measures the S3 sink in its own process and `aws s3 sync` as a child, and a proxy on the sink's event loop would
// charge its own CPU (every request and byte piped through it) to the sink alone.
import { startS3Proxy } from './s3-proxy.ts';

export type ProxyChildMessage =
  { type: 'counts'; id: number } | { type: 'reset'; id: number } | { type: 'close'; id: number };
export type ProxyChildReply =
  | { type: 'ready'; url: string }
  | { type: 'counts'; id: number; counts: [string, number][]; singlePuts: number }
  | { type: 'done'; id: number };

const target = process.argv[2];
if (target === undefined || process.send === undefined)
  throw new Error('s3-proxy-child: usage: fork with IPC, argv[2] = S3 endpoint');
const send = (m: ProxyChildReply) => process.send!(m);
const proxy = await startS3Proxy(target);
/** PUTs without a query string: whole-object uploads (a multipart upload's parts carry `?partNumber=`). */
let singlePuts = 0;
proxy.onRequest = (r) => {
  if (r.method === 'PUT' && !r.hasQuery) singlePuts++;
};
process.on('message', (m: ProxyChildMessage) => {
  if (m.type === 'counts') send({ type: 'counts', id: m.id, counts: [...proxy.counts], singlePuts });
  else if (m.type === 'reset') {
    proxy.resetCounts();
    singlePuts = 0;
    send({ type: 'done', id: m.id });
  } else if (m.type === 'close') {
    void proxy.close().then(() => {
      send({ type: 'done', id: m.id });
      process.disconnect();
    });
  }
});
// The parent gone (killed, crashed): nothing is left listening.
process.on('disconnect', () => void proxy.close().then(() => process.exit(0)));
send({ type: 'ready', url: proxy.url });
