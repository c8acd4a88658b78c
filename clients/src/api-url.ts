// The API this copy of the package asks when no --base-url, RESET_STATUS_API_URL or `baseUrl` option is given. The
// repository's copy names none: every call there needs one of the three and says so. A release bakes in the production
// URL the operator configures (the release workflow's `scripts/pack-client.ts` writes this module into the package it
// publishes), so the published `npx reset-status` answers with no configuration.
export const PRODUCTION_API_URL: string | null = null;
