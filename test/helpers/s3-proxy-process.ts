// The counting proxy (s3-proxy.ts) in a child process, for measurements: its CPU is not the measured process's.
// Counting only (no faults): the fault tests use startS3Proxy in process, where rules are functions.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ProxyChildMessage, ProxyChildReply } from './s3-proxy-child.ts';

export interface S3ProxyProcess {
  url: string;
  /** Requests seen since the last reset, by method, and the whole-object PUTs (no query string) among them. */
  counts(): Promise<{ byMethod: Map<string, number>; singlePuts: number }>;
  resetCounts(): Promise<void>;
  close(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./s3-proxy-child.ts', import.meta.url));
const START_TIMEOUT_MS = 30_000;

export async function startS3ProxyProcess(target: string): Promise<S3ProxyProcess> {
  const child = fork(CHILD, [target], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, (r: ProxyChildReply) => void>();
  let nextId = 0;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`s3-proxy-process: no proxy within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.once('exit', (code) => reject(new Error(`s3-proxy-process: the proxy exited (${code}) before it listened`)));
    child.on('message', (r: ProxyChildReply) => {
      if (r.type === 'ready') {
        clearTimeout(timer);
        resolve(r.url);
      } else waiting.get(r.id)?.(r);
    });
  });
  const ask = (type: ProxyChildMessage['type']) =>
    new Promise<ProxyChildReply>((resolve, reject) => {
      const id = nextId++;
      if (child.exitCode !== null)
        return reject(new Error(`s3-proxy-process: the proxy has exited (${child.exitCode})`));
      waiting.set(id, (r) => {
        waiting.delete(id);
        resolve(r);
      });
      child.send({ type, id } satisfies ProxyChildMessage);
    });
  return {
    url,
    async counts() {
      const r = await ask('counts');
      if (r.type !== 'counts') throw new Error('s3-proxy-process: unexpected reply');
      return { byMethod: new Map(r.counts), singlePuts: r.singlePuts };
    },
    async resetCounts() {
      await ask('reset');
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await ask('close');
      await exited;
    },
  };
}
