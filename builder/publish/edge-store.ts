// The edge store: the few values the router reads with its clock (see EDGE_* in contract.ts). One interface, a local
// file next to the build (what the preview reads) and the CloudFront KeyValueStore (kvs-edge-store.ts), both driven
// by the same pure plan and run through one contract suite.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { EDGE_STORE_FILE } from '../contract.ts';
import { DataError } from '../errors.ts';
import { writeFileAtomic } from '../fsutil/atomic.ts';

const WHERE = 'publish/edge-store';

export interface EdgeStoreReport {
  target: string;
  put: number;
  deleted: number;
  unchanged: number;
}

export interface EdgeStore {
  /** Makes the store hold exactly `entries`: changed and new keys put, keys no longer wanted deleted. */
  write(entries: Readonly<Record<string, string>>): Promise<EdgeStoreReport>;
  /** Everything the store holds now. */
  read(): Promise<Record<string, string>>;
}

/** What turns `current` into `desired`; sorted, so a plan is the same whatever order the store listed its keys in. */
export function planEdgeStore(current: Readonly<Record<string, string>>, desired: Readonly<Record<string, string>>) {
  const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  const puts = Object.keys(desired)
    .sort()
    .filter((key) => !has(current, key) || current[key] !== desired[key])
    .map((key) => ({ key, value: desired[key]! }));
  const deletes = Object.keys(current)
    .filter((k) => !has(desired, k))
    .sort();
  return { puts, deletes, unchanged: Object.keys(desired).length - puts.length };
}

/** Reads a store file; anything but a flat string map is an error. */
function parseEdgeStoreFile(text: string, where: string): Record<string, string> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new DataError(WHERE, `${where} is not valid JSON: ${(err as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new DataError(WHERE, `${where} is not a JSON object`);
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string')
      throw new DataError(WHERE, `${where}: the value of ${JSON.stringify(k)} is not a string`);
    out[k] = v;
  }
  return out;
}

/** `<dir>/edge-store.json`, written atomically (the preview may be reading it). */
export function createLocalEdgeStore(dir: string): EdgeStore {
  const file = path.join(dir, EDGE_STORE_FILE);
  async function read(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    return parseEdgeStoreFile(text, file);
  }
  return {
    read,
    async write(entries) {
      const plan = planEdgeStore(await read(), entries);
      if (plan.puts.length > 0 || plan.deletes.length > 0) {
        const sorted = Object.fromEntries(
          Object.keys(entries)
            .sort()
            .map((k) => [k, entries[k]]),
        );
        await writeFileAtomic(file, JSON.stringify(sorted, null, 2) + '\n');
      }
      return { target: file, put: plan.puts.length, deleted: plan.deletes.length, unchanged: plan.unchanged };
    },
  };
}
