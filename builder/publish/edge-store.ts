// The edge store: the few values the router reads with its clock (see EDGE_* in contract.ts). One interface, a local
// file next to the build (what the preview reads) and the CloudFront KeyValueStore (kvs-edge-store.ts), both driven
// by the same pure plan and run through one contract suite.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { EDGE_STORE_FILE } from '../contract.ts';
import { DataError } from '../errors.ts';
import { writeFileAtomic } from '../fsutil/atomic.ts';
import { parseJsonWith } from '../fsutil/json.ts';
import { unlessMissing } from '../fsutil/missing.ts';

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
  const puts = Object.keys(desired)
    .sort()
    .filter((key) => !Object.hasOwn(current, key) || current[key] !== desired[key])
    .map((key) => ({ key, value: desired[key]! }));
  const deletes = Object.keys(current)
    .filter((k) => !Object.hasOwn(desired, k))
    .sort();
  return { puts, deletes, unchanged: Object.keys(desired).length - puts.length };
}

/** `<dir>/edge-store.json`, written atomically (the preview may be reading it). */
export function createLocalEdgeStore(dir: string): EdgeStore {
  const file = path.join(dir, EDGE_STORE_FILE);
  /** The file's map; anything but a flat string map is an error. */
  async function read(): Promise<Record<string, string>> {
    const parsed = parseJsonWith(await unlessMissing(readFile(file, 'utf8'), '{}'), z.record(z.string(), z.string()));
    if (!parsed.ok) throw new DataError(WHERE, `${file} is not a flat string map: ${parsed.reason}`);
    return Object.assign(Object.create(null) as Record<string, string>, parsed.data);
  }
  return {
    read,
    async write(entries) {
      const plan = planEdgeStore(await read(), entries);
      if (plan.puts.length > 0 || plan.deletes.length > 0) {
        const sorted = Object.fromEntries(Object.entries(entries).sort(([a], [b]) => (a < b ? -1 : 1)));
        await writeFileAtomic(file, JSON.stringify(sorted, null, 2) + '\n');
      }
      return { target: file, put: plan.puts.length, deleted: plan.deletes.length, unchanged: plan.unchanged };
    },
  };
}
