// Preloaded into a measured process (`node --import tsx --import ./bench/rss-probe.ts ...`): on exit it writes the
// process's peak resident set size, so the real entry point is measured without changing it.
import { writeFileSync } from 'node:fs';

const target = process.env.RSA_BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    // resourceUsage().maxRSS is in KiB.
    writeFileSync(
      target,
      JSON.stringify({ max_rss_bytes: process.resourceUsage().maxRSS * 1024, uptime_ms: performance.now() }),
    );
  });
}
