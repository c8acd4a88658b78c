// V8 settings that pay off only for a large run. A tick starts without them (its entry point calls startSmallRun),
// and run() turns them on once it holds TUNED_FROM_EVENTS events. V8 reads both values as it goes (the next heap
// limit, the next function to optimize), so setting them mid-run takes effect.
//  - `--heap-growing-percent=25`: by default V8 lets the heap grow far past what is live before collecting: at 10,000
//    events the streamed documents left 200 MiB of garbage over a 42 MiB live heap, peak RSS 443 MiB instead of 289
//    (BENCHMARKS.md section 2). For a tick of today's size (tens of events) it only adds collections: 30-60 ms CPU.
//  - TurboFan (off from the start): a tick of today's size runs little code often enough to earn back optimizing it
//    on a second thread, ~60 ms CPU a tick (BENCHMARKS.md 1a); the loops over 10,000 events do.
// None of them is a command-line flag: with any V8 flag on node's command line, V8 refuses the code cache Node ships
// for its own modules, so each built-in that loads after start-up compiles from source, about three times slower
// (node:crypto 3 → 11 ms, node:http 1.5 → 4.5 ms). The refresh workflow runs plain `node build/refresh.mjs`.
import v8 from 'node:v8';

export const TUNED_FROM_EVENTS = 1_000;
export const LARGE_RUN_HEAP_GROWING_PERCENT = 25;

let tuned = false;

/**
 * Called by an entry point (schedules/refresh.ts, builder/main.ts) once its modules are loaded, before the run: no
 * TurboFan until run() finds the run large. The built-ins those modules import are in by then, from Node's cache.
 */
export function startSmallRun(): void {
  if (!tuned) v8.setFlagsFromString('--no-opt');
}

/** Turns the large-run settings on, from now on, when the run holds `events` events or more; says whether they are. */
export function tuneForRunSize(events: number): boolean {
  if (!tuned && events >= TUNED_FROM_EVENTS) {
    v8.setFlagsFromString(`--heap-growing-percent=${LARGE_RUN_HEAP_GROWING_PERCENT}`);
    v8.setFlagsFromString('--turbofan');
    tuned = true;
  }
  return tuned;
}
