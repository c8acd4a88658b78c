#!/usr/bin/env bash
# Lints the OpenAPI document the build publishes with @redocly/cli (recommended) and @stoplight/spectral-cli
# (spectral:oas); fails on any error or warning from either. Offline: both read only the generated file.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d)/openapi.json"
node --import tsx scripts/openapi.ts "$out"
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
report="$(npx --no-install redocly lint --config redocly.yaml --format=json "$out" 2>/dev/null)" || true
node -e '
  const r = JSON.parse(process.argv[1]); const t = r.totals;
  for (const p of r.problems) console.log(`redocly ${p.severity} ${p.ruleId}: ${p.message} (${(p.location[0] || {}).pointer || ""})`);
  console.log(`redocly: ${t.errors} errors, ${t.warnings} warnings`);
  process.exit(t.errors + t.warnings === 0 ? 0 : 1);
' "$report"
npx --no-install spectral lint --ruleset .spectral.yaml --fail-severity=warn "$out"
