import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'infra/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/helpers/run-tmp.ts'],
    // Nothing reaches the internet: the sources whose defaults are public services a test has not pointed at loopback
    // (codex-reset.com's timeline, X's oEmbed endpoint) are off in every test and every build a test starts.
    env: { RESET_TIMELINE_URL: '', RESET_POST_EMBED_URL: '' },
    // The JSON results let .ci/run print the plain `N passed, N failed` line CI reads.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
