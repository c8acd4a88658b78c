// The OpenAPI document describes what the router answers; `npm run lint:openapi` (CI) runs redocly and spectral on it.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CODES } from '../../builder/contract.ts';
import { route } from '../../builder/edge/route.ts';
import { DEFAULT_SERVER_URL, buildOpenApi } from '../../builder/render/openapi.ts';
import { DOCUMENT_SCHEMAS } from '../../builder/render/schemas.ts';

type Op = { operationId: string; tags: string[]; description: string; responses: Record<string, unknown> };
const doc = buildOpenApi() as any;

describe('the OpenAPI document', () => {
  it("describes the forecast's own stale_after and the expired forecast, in the operation and the schemas", () => {
    expect(doc.paths['/api/forecast'].get.description).toMatch(/own `meta\.stale_after`, an hour after `issued_at`/);
    expect(doc.paths['/api/forecast'].get.description).toContain('expired forecast');
    const forecast = doc.components.schemas.Forecast;
    expect(forecast.description).toMatch(/holds until meta\.stale_after \(60 minutes after issued_at\)/);
    expect(forecast.description).toContain('since when it has expired');
    expect(forecast.properties.probability_24h.description).toContain('past meta.stale_after');
    expect(forecast.properties.explanation.description).toContain('since when it has expired and why');
    expect(doc.components.schemas.Meta.properties.stale_after.description).toContain('For the forecast: 60 minutes');
    // The published JSON Schema of the document carries the same words.
    const published = JSON.stringify(z.toJSONSchema(DOCUMENT_SCHEMAS.forecast));
    expect(published).toContain('the CDN serves the expired forecast instead');
  });

  it('takes its servers URL from the build, with a documented default', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: DEFAULT_SERVER_URL })]);
    expect((buildOpenApi({ serverUrl: 'https://api.example.test' }) as any).servers[0].url).toBe(
      'https://api.example.test',
    );
    expect(doc.security).toEqual([]);
    expect(doc.info.license.name).toBe('MIT');
    expect(doc.info.contact.name).toBeTruthy();
  });

  it('has every path the router serves, each with GET, HEAD and OPTIONS, unique operationIds, tags and descriptions', () => {
    for (const p of [
      '/api',
      '/api/latest',
      '/api/status',
      '/api/history',
      '/api/events/{id}',
      '/api/forecast',
      '/api/signals',
      '/api/accuracy',
      '/api/openapi.json',
      '/api/schemas/{name}.json',
      '/api/license.txt',
    ]) {
      expect(Object.keys(doc.paths[p] ?? {}), p).toEqual(expect.arrayContaining(['get', 'head', 'options']));
    }
    const ids = new Set<string>();
    const tags = new Set(doc.tags.map((t: { name: string }) => t.name));
    for (const [p, item] of Object.entries<Record<string, Op>>(doc.paths)) {
      for (const m of ['get', 'head', 'options']) {
        const op = item[m]!;
        expect(ids.has(op.operationId), `${m} ${p}`).toBe(false);
        ids.add(op.operationId);
        expect(op.description.length, `${m} ${p}`).toBeGreaterThan(0);
        for (const t of op.tags) expect(tags.has(t)).toBe(true);
        if (m !== 'options')
          expect(Object.keys(op.responses).sort(), `${m} ${p}`).toEqual(['200', '400', '404', '405', '414']);
        else expect(Object.keys(op.responses).sort()).toEqual(['204', '405', '414']);
      }
    }
  });

  it('documents every status and error code the router answers', () => {
    const answered = new Map<number, Set<string>>();
    const probe = (method: string, uri: string, query = '') => {
      const r = route({ method, uri, query });
      if (r.kind !== 'response' || r.status === 204) return;
      const code = (JSON.parse(r.body) as { error: { code: string } }).error.code;
      answered.set(r.status, (answered.get(r.status) ?? new Set()).add(code));
      expect(ERROR_CODES as readonly string[]).toContain(code);
    };
    probe('GET', '/api/latest', 'lang=fr');
    probe('GET', '/api/history', 'type=x');
    probe('GET', '/api/latest', 'lang=de&lang=de');
    probe('GET', '/api/latest', '%');
    probe('GET', '/api/latest', Array.from({ length: 25 }, (_, i) => `p${i}=1`).join('&'));
    probe('GET', '/api/a%2e');
    probe('GET', '/api/nothing');
    probe('GET', '/api/events/BAD');
    probe('POST', '/api/latest');
    probe('GET', '/api/' + 'a'.repeat(600));
    expect([...answered.keys()].sort()).toEqual([400, 404, 405, 414]);
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual([...ERROR_CODES]);
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toBeDefined();
  });

  it('is open: no additionalProperties false anywhere, and names every published schema', () => {
    expect(JSON.stringify(doc)).not.toContain('"additionalProperties":false');
    expect(doc.paths['/api/schemas/{name}.json'].parameters[0].schema.enum).toEqual(Object.keys(DOCUMENT_SCHEMAS));
  });

  it('names horizons one way (`_24h`, `_48h`) and marks the older accuracy names deprecated, in OpenAPI and the published JSON Schema', () => {
    const acc = doc.components.schemas.Accuracy;
    for (const k of ['summary_24h', 'summary_48h', 'reliability_24h', 'reliability_48h']) {
      expect(acc.properties[k], k).toBeDefined();
      expect(acc.properties[k].deprecated, k).toBeUndefined();
      expect(acc.required).toContain(k);
    }
    for (const k of ['summary', 'reliability']) {
      expect(acc.properties[k].deprecated, k).toBe(true);
      expect(acc.properties[k].description, k).toMatch(/api_version 2/);
    }
    type Props = {
      properties?: Record<string, { deprecated?: boolean }>;
      $defs?: Record<string, { properties: Record<string, { deprecated?: boolean }> }>;
    };
    const published = z.toJSONSchema(DOCUMENT_SCHEMAS.accuracy, { target: 'draft-2020-12', io: 'output' }) as Props;
    const props = published.properties ?? published.$defs!['Accuracy']!.properties;
    expect([props.summary!.deprecated, props.reliability!.deprecated, props.summary_24h!.deprecated]).toEqual([
      true,
      true,
      undefined,
    ]);
    // No other horizon spelled h24/h48 in any document's field names, deprecated aliases aside.
    const names = new Set<string>();
    const walk = (v: unknown, deprecated: boolean): void => {
      if (Array.isArray(v)) return v.forEach((x) => walk(x, deprecated));
      if (v === null || typeof v !== 'object') return;
      const o = v as Record<string, unknown>;
      const dep = deprecated || o.deprecated === true;
      for (const [k, x] of Object.entries(o)) {
        if (k !== 'properties') walk(x, dep);
        else
          for (const [name, p] of Object.entries(x as Record<string, { deprecated?: boolean }>)) {
            if (!dep && p.deprecated !== true) names.add(name);
            walk(p, dep || p.deprecated === true);
          }
      }
    };
    walk(doc.components.schemas, false);
    expect([...names].filter((n) => /(^|_)h\d+$|^\d+h_|horizon\d/.test(n))).toEqual([]);
    expect([...names]).toEqual(expect.arrayContaining(['probability_24h', 'base_rate_48h', 'summary_24h']));
  });
});
