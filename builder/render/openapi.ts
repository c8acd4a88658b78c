// The OpenAPI 3.1 document, generated from the same zod schemas the build validates against.
import { z } from 'zod';
import { EVENT_TYPES, LANGS } from '../contract.ts';
import { API_VERSION } from './schemas.ts';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

export function buildOpenApi(): Record<string, unknown> {
  // Every response schema carries a `.meta({ id })`, so each becomes one named component.
  const { schemas } = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` });
  for (const s of Object.values(schemas)) {
    delete (s as Record<string, unknown>).$schema;
    delete (s as Record<string, unknown>).$id;
  }
  const langParam = {
    name: 'lang',
    in: 'query',
    required: false,
    description: 'Response language (case-insensitive, given at most once). Default en; never chosen from Accept-Language. Anything else is a 400.',
    schema: { type: 'string', enum: [...LANGS], default: 'en' },
  };
  const errors = {
    '400': { description: 'Unsupported lang, unknown type, repeated parameter or malformed request.', content: { 'application/json': { schema: ref('Error') } } },
    '404': { description: 'No such resource.', content: { 'application/json': { schema: ref('Error') } } },
    '405': { description: 'Method other than GET, HEAD, OPTIONS.', content: { 'application/json': { schema: ref('Error') } } },
  };
  const headers = {
    'Content-Language': { schema: { type: 'string' } },
    'Cache-Control': { schema: { type: 'string', const: 'public, max-age=30' } },
    'Access-Control-Allow-Origin': { schema: { type: 'string', const: '*' } },
  };
  const get = (summary: string, schemaId: string, params: unknown[] = []) => ({
    get: {
      summary,
      parameters: [langParam, ...params],
      responses: { '200': { description: 'OK', headers, content: { 'application/json': { schema: ref(schemaId) } } }, ...errors },
    },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Reset Status API',
      version: API_VERSION,
      description:
        'Has OpenAI reset Codex usage limits for everyone today, and will it happen soon? Static JSON rebuilt every 15 minutes; every response is cacheable for 30 seconds and open to any origin.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths: {
      '/api/latest': get("Today's answer and the latest resets", 'Latest'),
      '/api/status': get("Today's state, recent events, source checks and the upstream status", 'Status'),
      '/api/history': get('Recorded events, newest first (coverage is partial)', 'History', [
        { name: 'type', in: 'query', required: false, description: 'Only events of this type. Unknown types are a 400 naming the valid ones.', schema: { type: 'string', enum: [...EVENT_TYPES] } },
      ]),
      '/api/events/{id}': get('One event', 'EventResponse', [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,79}$' } }]),
      '/api/forecast': get('Probability of a global reset within 24h and 48h', 'Forecast'),
      '/api/signals': get('Public signals awaiting review', 'Signals'),
      '/api/accuracy': get('Brier scores of past forecasts against climatology', 'Accuracy'),
    },
    components: { schemas },
  };
}
