// How tightly V8 keeps the heap. By default it lets the heap grow far past what is live before collecting: at 10,000
// events the streamed documents left 200 MiB of garbage over a 42 MiB live heap (BENCHMARKS.md section 2).
// `--heap-growing-percent=25` holds the heap to 25% over the live size, but costs a tick of today's size (tens of
// events) 30-60 ms of CPU in extra collections for nothing (BENCHMARKS.md 1a). So the run asks for it once it holds
// enough events for the garbage to matter, instead of every process starting with the flag. V8 reads the value each
// time it sets the next heap limit, so setting it while running takes effect from the next collection.
import v8 from 'node:v8';

export const TIGHT_HEAP_FROM_EVENTS = 1_000;
export const TIGHT_HEAP_GROWING_PERCENT = 25;

let tight = false;

/** Keeps the heap tight from now on when the run holds `events` events or more; says whether it is tight. */
export function keepHeapTightFor(events: number): boolean {
  if (!tight && events >= TIGHT_HEAP_FROM_EVENTS) {
    v8.setFlagsFromString(`--heap-growing-percent=${TIGHT_HEAP_GROWING_PERCENT}`);
    tight = true;
  }
  return tight;
}
