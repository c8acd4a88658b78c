// Sources show a URL the same way as everything else: scheme and host only (../redact.ts).
export { redactUrl, redactUrlsIn } from '../redact.ts';
