import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as the OTLP/HTTP JSON export carries it (the fields the tests read). */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  serviceName: string;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}

/**
 * A tiny OpenTelemetry collector on 127.0.0.1: takes `POST /v1/traces` in OTLP/HTTP JSON (what
 * `@opentelemetry/exporter-trace-otlp-http` sends) and keeps the spans.
 */
export class FakeOtlpCollector {
  readonly spans: ExportedSpan[] = [];
  /** Every request received, whatever its path. */
  requests = 0;

  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
  ) {}

  static async start(): Promise<FakeOtlpCollector> {
    let collector: FakeOtlpCollector | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        if (!collector) return;
        collector.requests += 1;
        if (request.method !== "POST" || request.url !== "/v1/traces") {
          response.writeHead(404).end();
          return;
        }
        collector.take(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    collector = new FakeOtlpCollector(server, `http://127.0.0.1:${port}`);
    return collector;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(body: {
    resourceSpans?: {
      resource?: { attributes?: { key: string; value: AnyValue }[] };
      scopeSpans?: {
        spans?: (Omit<ExportedSpan, "attributes" | "serviceName"> & {
          attributes?: { key: string; value: AnyValue }[];
        })[];
      }[];
    }[];
  }): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            attributes: attributesOf(span.attributes),
            serviceName: String(resource["service.name"] ?? ""),
          });
    }
  }
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, anyValue(value)]));
}

function anyValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(anyValue);
  return undefined;
}
