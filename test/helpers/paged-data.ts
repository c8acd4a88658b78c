// Archives large enough that history is paged (contract.ts, HISTORY_PAGE_SIZE) for every event type: for the paging
// contract suite and the edge tables, which must see archived pages that exist.
import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EventType } from '../../builder/contract.ts';
import type { EventInput } from '../../builder/model/schemas.ts';
import { DATA_DIR } from './build.ts';
import { testEvent } from './events.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * `counts[type]` events of each type, interleaved and a day apart, the newest a day before `end`: unique ids
 * (`paged-<type>-<n>`, n from 1, the oldest) and unique source posts, so none is merged with another.
 */
export function pagedEvents(counts: Readonly<Record<EventType, number>>, end: string): EventInput[] {
  const queue: EventType[] = [];
  const left = { ...counts };
  while (Object.values(left).some((n) => n > 0)) {
    for (const t of Object.keys(left) as EventType[]) {
      if (left[t] > 0) {
        queue.push(t);
        left[t]--;
      }
    }
  }
  const seen: Record<string, number> = {};
  // queue[0] is the oldest.
  return queue.map((type, i) => {
    const n = (seen[type] = (seen[type] ?? 0) + 1);
    const at = new Date(Date.parse(end) - (queue.length - i) * DAY_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return pagedEvent(`paged-${type.replace(/_/g, '-')}-${n}`, type, at);
  });
}

/** One archived event of `type` at `at` (test/helpers/events.ts), named `id` and citing a post of its own. */
export function pagedEvent(id: string, type: EventType, at: string): EventInput {
  return {
    ...testEvent(at, type),
    id,
    sources: [{ platform: 'X', url: `https://x.com/example/status/${id}`, author: 'example' }],
  };
}

/**
 * Writes `events` as the archive `paged` into `dir` (a data dir), next to a copy of the curated data/ when
 * `withCurated`. Returns `dir`.
 */
export async function writePagedData(dir: string, events: readonly EventInput[], withCurated = false): Promise<string> {
  if (withCurated) await cp(DATA_DIR, dir, { recursive: true });
  await mkdir(path.join(dir, 'archive'), { recursive: true });
  const archive = {
    archive: {
      name: 'paged',
      url: 'https://example.invalid/paged',
      license: 'CC0-1.0',
      notice: 'Test data for paged history.',
    },
    records: events,
  };
  await writeFile(path.join(dir, 'archive', 'paged.json'), JSON.stringify(archive));
  return dir;
}

/**
 * The data of the edge tables' builds (test/helpers/edge-cases.ts): the curated data/ and 200 events of each type
 * before it (a page archived for every type, five for the full list), too old to touch today's state or the forecast.
 */
export function writeEdgeTableData(dir: string): Promise<string> {
  return writePagedData(
    dir,
    pagedEvents({ global_reset: 200, banked_grant: 200, policy_change: 200 }, '2020-01-01T00:00:00Z'),
    true,
  );
}
