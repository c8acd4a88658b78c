// Constants of the public contract shared by the edge router and the renderer (dependency-free, so the edge
// bundle can include it).
export const CACHE_CONTROL = 'public, max-age=30';
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Served, with status 404, for a well-formed key that has no object (the CDN's custom error response). */
export const NOT_FOUND_KEY = 'api/errors/not-found.json';
/** The not-found document carries every language, so its Content-Language lists them all. */
export const NOT_FOUND_CONTENT_LANGUAGE = 'en, de, ko, ja, zh';
