import { type Context, context, trace } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { Logger } from "../log/logger.js";
import type { Metrics } from "../metrics/metrics.js";
import { AsyncContextManager } from "./async-context-manager.js";
import { fixedIdGenerator } from "./fixed-id-generator.js";
import { LatencyHistograms } from "./latency-histograms.js";

/** The running telemetry of one service; `shutdown` flushes what is left to the collector. */
export interface Telemetry {
  /** Whether spans are exported over OTLP (`OTEL_EXPORTER_OTLP_ENDPOINT` was set). */
  exporting: boolean;
  shutdown(): Promise<void>;
}

/** Hands spans to whatever the current service wants; registered once per process. */
class SwitchableProcessor implements SpanProcessor {
  targets: SpanProcessor[] = [];

  onStart(span: Span, parentContext: Context): void {
    for (const target of this.targets) target.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    for (const target of this.targets) target.onEnd(span);
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.targets.map((target) => target.forceFlush()));
  }

  async shutdown(): Promise<void> {}
}

let switchable: SwitchableProcessor | undefined;

function registerOnce(serviceName: string): SwitchableProcessor {
  if (switchable) return switchable;
  switchable = new SwitchableProcessor();
  context.setGlobalContextManager(new AsyncContextManager());
  trace.setGlobalTracerProvider(
    new TracerProvider({
      resource: resourceFromAttributes({ "service.name": serviceName }),
      idGenerator: fixedIdGenerator,
      spanProcessors: [switchable],
    }),
  );
  return switchable;
}

/**
 * Spans for turns, model calls, tool calls and approval waits (GenAI semantic conventions):
 * always into the latency histograms on `/metrics`, and over OTLP/HTTP to
 * `OTEL_EXPORTER_OTLP_ENDPOINT` when it is set (nothing leaves the process when it is not).
 * The OTLP exporter (with its protobuf and metrics SDK dependencies) is loaded only then.
 */
export async function startTelemetry(options: {
  metrics: Metrics;
  logger: Logger;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<Telemetry> {
  const { env, logger } = options;
  const processor = registerOnce(env.OTEL_SERVICE_NAME || "roundtable");
  const histograms = new LatencyHistograms(options.metrics);
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const exporter = endpoint
    ? new BatchSpanProcessor({
        exporter: new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter({
          url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${endpoint.replace(/\/+$/, "")}/v1/traces`,
        }),
        scheduledDelayMillis: 1000,
      })
    : undefined;
  const targets: SpanProcessor[] = exporter ? [histograms, exporter] : [histograms];
  processor.targets.push(...targets);
  if (exporter) logger.info({ endpoint }, "exporting traces over OTLP/HTTP");
  return {
    exporting: exporter !== undefined,
    async shutdown() {
      processor.targets = processor.targets.filter((target) => !targets.includes(target));
      await exporter?.shutdown().catch((error: unknown) => logger.warn({ err: error }, "trace export failed at stop"));
    },
  };
}
