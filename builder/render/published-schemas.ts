// The JSON Schemas derived from the zod response schemas: one per document (api/schemas/<name>.json, before
// openapi.ts's openSchema) and the registry's named schemas (the OpenAPI document's components), computed on first use.
import { z } from 'zod';
import { DOCUMENT_SCHEMAS, type DocumentSchemaName } from './schemas.ts';

export interface PublishedSchemas {
  documents: Record<DocumentSchemaName, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
}

function computePublishedSchemas(): PublishedSchemas {
  const names = Object.keys(DOCUMENT_SCHEMAS) as DocumentSchemaName[];
  const documents = Object.fromEntries(
    names.map((n) => [n, z.toJSONSchema(DOCUMENT_SCHEMAS[n], { target: 'draft-2020-12', io: 'output' })]),
  ) as unknown as PublishedSchemas['documents'];
  // Every response schema carries a `.meta({ id })`, so each becomes one named component.
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
  });
  for (const s of Object.values(schemas)) {
    delete (s as Record<string, unknown>).$schema;
    delete (s as Record<string, unknown>).$id;
  }
  return { documents, components: schemas as PublishedSchemas['components'] };
}

let text: string | undefined;

/** A fresh copy on every call (parsed from one JSON text), so no caller can change what another one reads. */
export function publishedSchemas(): PublishedSchemas {
  text ??= JSON.stringify(computePublishedSchemas());
  return JSON.parse(text) as PublishedSchemas;
}
