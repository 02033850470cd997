// The official schemas of the protocol versions we claim, ACP 2026-04-17 and UCP v2026-04-08, as
// vendored byte for byte in test/official-schemas (its README says from where), loaded into one
// Ajv of JSON Schema 2020-12 so that their references resolve offline. Each check answers the
// official validator's complaints about an answer of ours: none when it conforms.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import YAML from 'yaml';

const ROOT = fileURLToPath(new URL('../official-schemas/', import.meta.url));
const ACP_DIR = path.join(ROOT, 'acp-2026-04-17/spec/2026-04-17');
const UCP_DIR = path.join(ROOT, 'ucp-2026-04-08/source');
/** Where the ACP files are registered: none of them has an `$id` naming its own place. */
const ACP_BASE = 'https://acp.invalid/spec/2026-04-17/';
/** Where the UCP service documents are registered, so that their `../../schemas/…` reach the schemas' `$id`s. */
const UCP_SERVICES = 'https://ucp.dev/services/shopping/';

// `strict: false`: the official files carry keywords of their own (`ucp_request`, `name`,
// `example`, OpenAPI's and OpenRPC's envelopes) that are annotations, not rules.
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: its plugin is also its own `default`, which is what TypeScript sees.
addFormatsModule.default(ajv);

const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );

// ACP: the JSON Schema bundles, and the webhook's OpenAPI (its event is defined nowhere else) with
// the checkout OpenAPI its `./openapi.agentic_checkout.yaml#/…` reaches.
for (const file of [
  'json-schema/schema.agentic_checkout.json',
  'json-schema/schema.delegate_payment.json',
  'json-schema/schema.feed.json',
]) {
  ajv.addSchema(json(path.join(ACP_DIR, file)), ACP_BASE + file);
}
for (const file of [
  'openapi/openapi.agentic_checkout.yaml',
  'openapi/openapi.agentic_checkout_webhook.yaml',
  'openapi/openapi.feed.yaml',
]) {
  ajv.addSchema({ ...YAML.parse(readFileSync(path.join(ACP_DIR, file), 'utf8')), $id: ACP_BASE + file });
}
const acpRpc = json(path.join(ACP_DIR, 'openrpc/openrpc.agentic_checkout.json'));

// UCP: every schema under its own `$id`, the discovery profile, and the REST and MCP documents.
/** A capability's schema by its name (`dev.ucp.shopping.fulfillment`): its `$id` and `$defs`. */
const capabilities = new Map<string, { $id: string; $defs?: Record<string, unknown> }>();
for (const file of filesUnder(path.join(UCP_DIR, 'schemas'))) {
  const schema = json(file);
  ajv.addSchema(schema);
  if (typeof schema.name === 'string') capabilities.set(schema.name, schema);
}
ajv.addSchema(json(path.join(UCP_DIR, 'discovery/profile_schema.json')));
// The profile's `$id` is https://ucp.dev/schemas/discovery/profile.json, yet its `../schemas/ucp.json`
// was written for its place in the repository (source/discovery/, beside source/schemas/): the
// same file under the address that path resolves to.
ajv.addSchema(
  ajv.getSchema('https://ucp.dev/schemas/ucp.json')!.schema,
  'https://ucp.dev/schemas/schemas/ucp.json',
);
const ucpRest = json(path.join(UCP_DIR, 'services/shopping/rest.openapi.json'));
const ucpRpc = json(path.join(UCP_DIR, 'services/shopping/mcp.openrpc.json'));
ajv.addSchema({ ...ucpRest, $id: `${UCP_SERVICES}rest.openapi.json` });
ajv.addSchema({ ...ucpRpc, $id: `${UCP_SERVICES}mcp.openrpc.json` });

const compiled = new Map<string, ValidateFunction>();
/** The validator of the schema at `ref` (an absolute URI with its JSON pointer), or of all of `refs`. */
function validatorOf(...refs: string[]): ValidateFunction {
  const key = refs.join(' ');
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(refs.length === 1 ? { $ref: refs[0] } : { allOf: refs.map(($ref) => ({ $ref })) });
    compiled.set(key, v);
  }
  return v;
}

/** What `validate` says of `body`: one line per complaint (`/line_items/0/item must NOT have additional properties (quantity)`). */
function problems(validate: ValidateFunction, body: unknown): string[] {
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => {
    const extra = e.params && 'additionalProperty' in e.params ? ` (${e.params.additionalProperty})` : '';
    const allowed =
      e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues)}` : '';
    return `${e.instancePath || '/'} ${e.message}${extra}${allowed} [${e.schemaPath}]`;
  });
}

/** A `$ref` of an OpenRPC/OpenAPI document made absolute: relative ones against the document's place. */
const absolute = (ref: string, documentUri: string) => new URL(ref, documentUri).href;

// --- ACP ---------------------------------------------------------------------------------------

const acpCheckout = `${ACP_BASE}json-schema/schema.agentic_checkout.json#/$defs/`;
const acpDelegate = `${ACP_BASE}json-schema/schema.delegate_payment.json#/$defs/`;

/**
 * Which official definition each ACP answer is, as openapi.agentic_checkout.yaml and
 * openapi.delegate_payment.yaml say: complete's 200 is CheckoutSessionWithOrder, every other
 * session a CheckoutSession; a refusal the flat Error of its API.
 */
export const ACP_DEFINITIONS = {
  session: `${acpCheckout}CheckoutSession`,
  completed: `${acpCheckout}CheckoutSessionWithOrder`,
  error: `${acpCheckout}Error`,
  discovery: `${acpCheckout}DiscoveryResponse`,
  delegated: `${acpDelegate}DelegatePaymentResponse`,
  delegateError: `${acpDelegate}Error`,
  webhookEvent: `${ACP_BASE}openapi/openapi.agentic_checkout_webhook.yaml#/components/schemas/WebhookEvent`,
} as const;
export type AcpDefinition = keyof typeof ACP_DEFINITIONS;

/** What the official ACP schema says of `body` as the answer `kind`. */
export const acpProblems = (kind: AcpDefinition, body: unknown) =>
  problems(validatorOf(ACP_DEFINITIONS[kind]), body);

/**
 * What the official ACP Feed API (schema.feed.json, 2026-04-17) says of a request we send a
 * platform's Feed API: `CreateFeedRequest` or `UpsertProductsRequest`.
 */
export const acpFeedProblems = (kind: 'CreateFeedRequest' | 'UpsertProductsRequest', body: unknown) =>
  problems(validatorOf(`${ACP_BASE}json-schema/schema.feed.json#/$defs/${kind}`), body);

/** What openapi.feed.yaml says of a request body of one of its operations (its schema there). */
export function acpFeedOperationProblems(operationId: string, body: unknown): string[] {
  const ref = `${ACP_BASE}openapi/openapi.feed.yaml`;
  const doc = ajv.getSchema(ref)!.schema as {
    paths: Record<
      string,
      Record<
        string,
        { operationId?: string; requestBody?: { content: Record<string, { schema: { $ref: string } }> } }
      >
    >;
  };
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const op of Object.values(ops)) {
      if (op?.operationId !== operationId) continue;
      const schemaRef = op.requestBody?.content['application/json']?.schema.$ref;
      if (!schemaRef) throw new Error(`${operationId} (${p}) has no JSON body`);
      return problems(validatorOf(absolute(schemaRef, ref)), body);
    }
  }
  throw new Error(`openapi.feed.yaml has no operation ${operationId}`);
}

/** What the official ACP MCP binding (openrpc.agentic_checkout.json) says of a tool's result. */
export function acpToolProblems(tool: string, result: unknown): string[] {
  const method = acpRpc.methods.find((m: { name: string }) => m.name === tool);
  if (!method) throw new Error(`the ACP binding has no method ${tool}`);
  return problems(validatorOf(absolute(method.result.schema.$ref, `${ACP_BASE}openrpc/`)), result);
}

// --- UCP ---------------------------------------------------------------------------------------

/**
 * The schemas an answer is checked against: the operation's, and for a resource (not an error
 * response) each extension the answer says was negotiated (`ucp.capabilities`), composed as the
 * spec's negotiation does (an extension's `$defs[<root capability>]` is the root extended with it).
 */
function withExtensions(rootRef: string, root: string, body: unknown): string[] {
  const ucp = (body as { ucp?: { status?: string; capabilities?: Record<string, unknown> } })?.ucp;
  if (ucp?.status === 'error') return [rootRef];
  const negotiated = Object.keys(ucp?.capabilities ?? {});
  const extensions = negotiated.flatMap((name) => {
    const schema = capabilities.get(name);
    return schema?.$defs?.[root] && name !== root ? [`${schema.$id}#/$defs/${root}`] : [];
  });
  return [rootRef, ...extensions];
}

/** The root capability of each REST operation's answer, for its extensions. */
const ROOT_OF: Record<string, string> = {
  create_checkout: 'dev.ucp.shopping.checkout',
  get_checkout: 'dev.ucp.shopping.checkout',
  update_checkout: 'dev.ucp.shopping.checkout',
  complete_checkout: 'dev.ucp.shopping.checkout',
  cancel_checkout: 'dev.ucp.shopping.checkout',
  get_order: 'dev.ucp.shopping.order',
};

/** What the official REST OpenAPI (rest.openapi.json) says of an operation's 2xx answer. */
export function ucpRestProblems(operationId: string, status: number, body: unknown): string[] {
  const operation = Object.values(ucpRest.paths as Record<string, Record<string, unknown>>)
    .flatMap((p) => Object.values(p))
    .find((o) => (o as { operationId?: string }).operationId === operationId) as
    | { responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }> }
    | undefined;
  if (!operation) throw new Error(`the UCP REST binding has no operation ${operationId}`);
  // A business outcome is 200 even where the operation's success is 201 (the overview's table:
  // `capabilities_incompatible`, 200): the operation's one answer schema covers both.
  const [only] = Object.entries(operation.responses).filter(([code]) => code.startsWith('2'));
  const response = operation.responses[String(status)] ?? (status === 200 ? only?.[1] : undefined);
  if (!response?.content) return [`the UCP REST binding defines no ${status} answer of ${operationId}`];
  const ref = absolute(response.content['application/json']!.schema.$ref, `${UCP_SERVICES}rest.openapi.json`);
  const root = ROOT_OF[operationId];
  return problems(validatorOf(...(root ? withExtensions(ref, root, body) : [ref])), body);
}

/** What the official MCP binding (mcp.openrpc.json) says of a tool's result. */
export function ucpToolProblems(tool: string, result: unknown): string[] {
  const method = ucpRpc.methods.find((m: { name: string }) => m.name === tool);
  if (!method) throw new Error(`the UCP MCP binding has no method ${tool}`);
  const ref = absolute(method.result.schema.$ref, `${UCP_SERVICES}mcp.openrpc.json`);
  const root = ROOT_OF[tool];
  return problems(validatorOf(...(root ? withExtensions(ref, root, result) : [ref])), result);
}

/** What the official schemas say of an order webhook's body: the order (order.json). */
export const ucpOrderProblems = (body: unknown) =>
  problems(
    validatorOf(
      ...withExtensions(capabilities.get('dev.ucp.shopping.order')!.$id, 'dev.ucp.shopping.order', body),
    ),
    body,
  );

/** What the official discovery schema says of our business profile (`/.well-known/ucp`). */
export const ucpProfileProblems = (body: unknown) =>
  problems(validatorOf('https://ucp.dev/schemas/discovery/profile.json#/$defs/business_profile'), body);

/** Fails the test, naming the complaints and the answer, unless the official schema found none. */
export function expectOfficial(complaints: string[], body: unknown): void {
  expect(complaints, `the official schema refuses ${JSON.stringify(body).slice(0, 3000)}`).toEqual([]);
}
