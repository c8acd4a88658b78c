// Entry of the CloudFront Function bundle: binds the runtime's KeyValueStore (the one associated with the function)
// to the handler. `cloudfront` is the runtime's own module; scripts/build-edge.ts keeps this import as the bundle's
// first line, as the runtime requires.
import cf from 'cloudfront';
import { createHandler } from './cloudfront.ts';

export const handler = createHandler(cf.kvs());
