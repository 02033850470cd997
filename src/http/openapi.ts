// The OpenAPI document's finishing: what the zod schemas alone do not say.
// - each answer's description is its status text, not the generator's "Default Response";
// - a signed-in POST declares the Idempotency-Key header it honours (src/http/idempotency.ts);
// - zod's safe-integer sentinels (±9007199254740991) are not bounds anyone chose: dropped, so an
//   integer shows only the bounds its schema gives;
// - routes that serve pages or protocols (/mcp, OAuth, the sandbox page) are listed with their
//   summary and no body schema (their own code checks what they receive).
import { STATUS_CODES } from 'node:http';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

type Transform = typeof jsonSchemaTransform;
type TransformInput = Parameters<Transform>[0];

const SENTINEL = Number.MAX_SAFE_INTEGER;

export const IDEMPOTENCY_HEADER_DOC = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x20-\\x7e]+$',
  description:
    'Optional. The same key with the same request within 24 hours answers the first answer again ' +
    '(header Idempotent-Replayed: true); with another request, or while the first runs, 409.',
};

export const openApiTransform: Transform = (input: TransformInput) => {
  const out = jsonSchemaTransform(input) as { schema: Record<string, unknown>; url: string };
  const schema = out.schema;
  const config = (input.route as { config?: { auth?: unknown } }).config;
  if (
    input.route.method === 'POST' ||
    (Array.isArray(input.route.method) && input.route.method.includes('POST'))
  ) {
    if (config?.auth !== undefined && config.auth !== 'public') {
      const headers = (schema.headers as { type?: string; properties?: Record<string, unknown> }) ?? {
        type: 'object',
        properties: {},
      };
      headers.properties = { ...headers.properties, 'Idempotency-Key': IDEMPOTENCY_HEADER_DOC };
      schema.headers = headers;
    }
  }
  // A route in another specification's format describes its answers in words.
  if (!schema.response && !schema.hide) {
    schema.response = { '2xx': { description: "Answered in the route's own format (see its summary)" } };
  }
  const response = schema.response as Record<string, Record<string, unknown>> | undefined;
  if (response) {
    for (const [status, answer] of Object.entries(response)) {
      if (answer && typeof answer === 'object' && !answer.description) {
        answer.description = STATUS_CODES[Number(status)] ?? 'Answer';
      }
    }
  }
  dropSentinels(schema);
  return out as ReturnType<Transform>;
};

/** Removes zod's ±MAX_SAFE_INTEGER bounds wherever they stand in a JSON schema (in place). */
export function dropSentinels(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropSentinels(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  if (o.minimum === -SENTINEL) delete o.minimum;
  if (o.maximum === SENTINEL) delete o.maximum;
  for (const value of Object.values(o)) dropSentinels(value);
}
