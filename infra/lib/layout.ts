// The bucket's key layout as the builder writes it with its default settings (RESET_S3_PREFIX empty). The IAM
// statements are written against these names, so a key the builder starts using elsewhere is denied, not silently
// granted; infra/test/template.test.ts pins them to the builder's own defaults.

/** Public documents: the only prefix CloudFront may read. */
export const API_PREFIX = 'api/';
export const STATE_KEY = 'state/state.json';
/** Second copy of every saved state, read only when the state object is unusable. */
export const STATE_LAST_GOOD_KEY = `${STATE_KEY}.last-good`;
export const LOCK_KEY = 'state/run.lock';
export const MANIFEST_KEY = 'state/publish-manifest.json';
/** Where an unusable state object is copied before a clean start. */
export const CORRUPT_PREFIX = 'state/corrupt/';
export const BACKUP_PREFIX = 'backups/';
/** A restore keeps the state it replaces here, written once like every backup object. */
export const REPLACED_STATE_PREFIX = `${BACKUP_PREFIX}replaced-state/`;
/** Served with status 404 for a key that has no object. */
export const NOT_FOUND_PATH = '/api/errors/not-found.json';

/** The metric every successful refresh puts once; the staleness alarm watches it. */
export const METRIC_NAMESPACE = 'ResetStatusApi';
export const REFRESH_METRIC = 'RefreshSucceeded';
/** The workflow file the scheduler dispatches (GitHub's REST API names a workflow by its file name). */
export const REFRESH_WORKFLOW_FILE = 'refresh.yml';
