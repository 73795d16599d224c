/**
 * The served OpenAPI document as the route table of the reliability suites: every operation
 * with its auth schemes, path parameters and request body schema, and a valid-looking exemplar
 * body built from that schema (so a probe gets past validation to the rule it tests).
 */
import { randomUUID } from 'node:crypto';
import { unsigned } from './api';

export interface JsonSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  additionalProperties?: boolean | JsonSchema;
}

export interface Operation {
  method: string;
  path: string;
  schemes: string[];
  pathParams: string[];
  queryParams: Array<{ name: string; schema: JsonSchema }>;
  body?: JsonSchema;
  bodyType?: string;
}

export interface ApiDocument {
  operations: Operation[];
  resolve: (schema: JsonSchema | undefined) => JsonSchema | undefined;
}

/** The parts of an operation of the document these helpers read. */
interface OperationObject {
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; schema?: JsonSchema }[];
}

export async function loadOperations(base = ''): Promise<ApiDocument> {
  const doc = (await unsigned('GET', `${base}/openapi.json`)).body as {
    paths: Record<string, Record<string, OperationObject>>;
    components?: { schemas?: Record<string, JsonSchema> };
  };
  const resolve = (schema: JsonSchema | undefined): JsonSchema | undefined => {
    let s = schema;
    for (let i = 0; s?.$ref && i < 10; i += 1) s = doc.components?.schemas?.[s.$ref.split('/').pop()!];
    return s;
  };
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content ?? {};
      const bodyType = Object.keys(content)[0];
      operations.push({
        method: method.toUpperCase(),
        path,
        schemes: (op.security ?? []).flatMap((s) => Object.keys(s)),
        pathParams: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: resolve(p.schema) ?? {} })),
        body: bodyType ? resolve(content[bodyType]?.schema) : undefined,
        bodyType,
      });
    }
  }
  return { operations, resolve };
}

/** A plausible value for a schema: required fields only, formats and lengths respected. */
export function exemplar(doc: ApiDocument, schema: JsonSchema | undefined, depth = 0): unknown {
  const s = doc.resolve(schema);
  if (!s || depth > 6) return undefined;
  if (s.enum && s.enum.length > 0) return s.enum[0];
  const variant = s.anyOf ?? s.oneOf ?? s.allOf;
  if (variant && variant.length > 0) return exemplar(doc, variant.find((v) => doc.resolve(v)?.type !== 'null') ?? variant[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = exemplar(doc, s.properties?.[key], depth + 1);
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return Math.max(s.minimum ?? 1, Math.min(s.maximum ?? 1000, 1000));
    case 'boolean':
      return false;
    case 'string':
      if (s.format === 'uuid') return randomUUID();
      if (s.format === 'date-time') return new Date().toISOString();
      if (s.format === 'uri' || s.format === 'url') return 'https://example.com/hook';
      if (s.format === 'email') return `probe-${randomUUID().slice(0, 8)}@example.com`;
      return `probe-value-${randomUUID().slice(0, 8)}`;
    default:
      return undefined;
  }
}

/** encodeURIComponent that does not throw on lone surrogates: they go out as the invalid UTF-8 bytes %ED%BF%BF. */
export const encodeLoose = (value: string) =>
  value
    .split(/([\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF])/)
    .map((part, i) => (i % 2 === 1 ? '%ED%BF%BF' : encodeURIComponent(part)))
    .join('');

export const fillPath = (path: string, values: Record<string, string> = {}) =>
  path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeLoose(values[name] ?? randomUUID()));
