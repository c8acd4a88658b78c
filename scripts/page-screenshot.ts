// Regenerates docs/page.png: the English page at 1100 px (scale 0.6), from a real build of recorded-shape sources on
// loopback, served by the preview and drawn by Debian's Chromium. Run: node --import tsx scripts/page-screenshot.ts
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { LANGS } from '../builder/contract.ts';
import { startPreview } from '../builder/edge/preview.ts';
import { createTempBuild, startLoopback, trackerHandler } from '../test/helpers/build.ts';
import { fixture } from '../test/sources/helpers.ts';

const NOW = '2026-11-23T12:00:00Z';
const summary = fixture('statuspage-incidentio-summary.json');
const tracker = await startLoopback(
  trackerHandler(() => [
    {
      id: 'rst_2026-11-23_a',
      reset_type: 'regular',
      announced_at: '2026-11-23T10:00:00Z',
      text: 'We reset Codex usage limits for everyone.',
      source: { type: 'x_post', author: 'example_dev', url: 'https://x.com/example_dev/status/2124805152568246272' },
    },
  ]),
);
const statusPage = await startLoopback((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(summary);
});
const build = await createTempBuild();
await build.build(NOW, [
  { id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` },
  { id: 'status-page', kind: 'status_page', url: `${statusPage.url}/api/v2/summary.json` },
]);
// The announced reset, as test/browser/page.test.ts writes it into the built documents.
for (const lang of LANGS) {
  const file = path.join(build.outDir, `api/${lang}/latest.json`);
  const doc = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  doc['upcoming'] ??= {
    id: 'rst-2026-11-23-up',
    type: 'global_reset',
    announced_at: '2026-11-23T11:30:00Z',
    scheduled_for: '2026-11-23T17:00:00Z',
    text: 'Another reset lands at 9am PT.',
    summary: 'Announced global reset',
    source: { platform: 'X', url: 'https://x.com/example_dev/status/2124827801809846272' },
  };
  await writeFile(file, JSON.stringify(doc));
}
const preview = await startPreview({ root: build.outDir, port: 0 });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 1250 },
    deviceScaleFactor: 0.6,
    timezoneId: 'America/New_York',
  });
  await context.clock.setFixedTime(new Date(NOW));
  const page = await context.newPage();
  await page.goto(`${preview.url}/en/`);
  await page.waitForSelector('body[data-live]');
  await page.screenshot({ path: 'docs/page.png' });
} finally {
  await browser.close();
  await preview.close();
  await tracker.close();
  await statusPage.close();
  await rm(path.dirname(build.outDir), { recursive: true, force: true });
}
