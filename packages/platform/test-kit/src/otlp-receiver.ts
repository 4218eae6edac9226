import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as the receiver keeps it: what a test asks of a trace. */
export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a trace's root. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT should be: the exporters add /v1/traces. */
  readonly endpoint: string;
  /** Every span received so far, in arrival order. */
  readonly spans: readonly ReceivedSpan[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpAttribute[];
}
interface OtlpTraces {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function valueOf(value: OtlpValue | undefined): OtlpValue[keyof OtlpValue] {
  return value?.stringValue ?? value?.intValue ?? value?.boolValue ?? value?.doubleValue;
}

function attributesOf(attributes: OtlpAttribute[] | undefined): Record<string, OtlpValue[keyof OtlpValue]> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

/** The spans of an OTLP/JSON export request (ids in hex, as the specification writes them in JSON). */
export function spansOfOtlpJson(body: OtlpTraces): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
      })),
    );
  });
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A collector for tests: OTLP over HTTP with JSON bodies (OTEL_EXPORTER_OTLP_PROTOCOL=http/json), traces only, on an
 * ephemeral loopback port. Protobuf bodies are refused with 415: decoding them would need the proto definitions, and
 * the exporter sends JSON just as well.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const body = await bodyOf(request);
      if (!String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(415).end();
        return;
      }
      spans.push(...spansOfOtlpJson(JSON.parse(body) as OtlpTraces));
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    })().catch(() => response.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The OTLP settings exportingTo sets, and puts back. */
const OTEL_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_SERVICE_NAME',
  'OTEL_BSP_SCHEDULE_DELAY',
] as const;
type OtelVariable = (typeof OTEL_VARIABLES)[number];

/**
 * Points OpenTelemetry's exporter at `endpoint` over http/json (and sets or clears the other OTLP variables given),
 * for a startTracing that follows; answers the function that puts every OTLP variable back as it was.
 */
export function exportingTo(endpoint: string, settings: Partial<Record<OtelVariable, string | undefined>> = {}) {
  const saved = OTEL_VARIABLES.map((name) => [name, process.env[name]] as const);
  const wanted = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', ...settings };
  const put = (name: string, value: string | undefined) => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  for (const [name, value] of Object.entries(wanted)) put(name, value);
  return (): void => saved.forEach(([name, value]) => put(name, value));
}

export interface ExportingReceiver extends OtlpReceiver {
  /** Puts this process's OTLP settings back as they were, and closes the receiver. */
  restore(): Promise<void>;
}

/**
 * A fresh receiver, and this process's exporter settings pointed at it (http/json, a 50 ms batch delay, no
 * OTEL_SERVICE_NAME, so the name a test starts tracing with is the one exported): what a test of tracing in this
 * process sets up before startTracing, and restores after its shutdown.
 */
export async function exportToOtlpReceiver(): Promise<ExportingReceiver> {
  const receiver = await startOtlpReceiver();
  const restoreEnvironment = exportingTo(receiver.endpoint, {
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_SERVICE_NAME: undefined,
  });
  return {
    ...receiver,
    async restore() {
      restoreEnvironment();
      await receiver.close();
    },
  };
}
