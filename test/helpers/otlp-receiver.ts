// A local OpenTelemetry collector for the tests: it takes OTLP/HTTP exports (POST /v1/traces, in
// OTLP's JSON encoding, `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) and keeps their spans, flattened,
// as the receiving end reads them. It answers as a collector does: 200 with an empty
// ExportTraceServiceResponse.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP AnyValue as JSON: the one field set says its type. */
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

interface KeyValue {
  key: string;
  value: AnyValue;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
}

interface ExportTraceServiceRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

/** A span as received, its attributes (and its resource's) made a plain object. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number | undefined;
  scope: string | undefined;
  service: string | undefined;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string } | undefined;
}

const plain = (v: AnyValue): unknown =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.boolValue ??
  v.doubleValue ??
  v.arrayValue?.values?.map(plain);

const attributesOf = (kvs: KeyValue[] | undefined) =>
  Object.fromEntries((kvs ?? []).map((kv) => [kv.key, plain(kv.value)]));

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Content types the exports came in, and paths other than /v1/traces that were posted to. */
  contentTypes: Set<string>;
  otherPaths: string[];
  /** Resolves once a span `match` accepts has arrived (exports are batched: up to seconds). */
  waitFor(match: (s: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes = new Set<string>();
  const otherPaths: string[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    contentTypes.add(String(req.headers['content-type']));
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      otherPaths.push(`${req.method} ${req.url}`);
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportTraceServiceRequest;
    for (const rs of body.resourceSpans ?? []) {
      const resource = attributesOf(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId || undefined,
            name: s.name,
            kind: s.kind,
            scope: ss.scope?.name,
            service: resource['service.name'] as string | undefined,
            attributes: attributesOf(s.attributes),
            status: s.status,
          });
        }
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    for (const wake of waiters) wake();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    otherPaths,
    waitFor(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = spans.find(match);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`no such span within ${timeoutMs} ms; got: ${spans.map((s) => s.name).join(', ')}`),
          );
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
