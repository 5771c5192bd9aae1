import { context, trace } from "@opentelemetry/api";
import type { Logger } from "../log/logger.js";
import type { Metrics } from "../metrics/metrics.js";
import { AsyncContextManager } from "./async-context-manager.js";
import { fixedIdGenerator } from "./fixed-id-generator.js";
import { LatencyHistograms } from "./latency-histograms.js";
import { MeasuringTracerProvider, SwitchingTracerProvider } from "./measuring-tracer.js";

/** The running telemetry of one service; `shutdown` flushes what is left to the collector. */
export interface Telemetry {
  /** Whether spans are exported over OTLP (`OTEL_EXPORTER_OTLP_ENDPOINT` was set). */
  exporting: boolean;
  shutdown(): Promise<void>;
}

let switching: SwitchingTracerProvider | undefined;

/** OpenTelemetry's global provider and context manager can be set once per process. */
function registerOnce(): SwitchingTracerProvider {
  if (switching) return switching;
  switching = new SwitchingTracerProvider();
  context.setGlobalContextManager(new AsyncContextManager());
  trace.setGlobalTracerProvider(switching);
  return switching;
}

/**
 * Spans for turns, model calls, tool calls and approval waits (GenAI semantic conventions):
 * always into the latency histograms on `/metrics`, and over OTLP/HTTP to
 * `OTEL_EXPORTER_OTLP_ENDPOINT` when it is set (nothing leaves the process when it is not).
 * The OpenTelemetry SDK and the OTLP exporter are loaded only then; otherwise spans only
 * measure (src/telemetry/measuring-tracer.ts).
 */
export async function startTelemetry(options: {
  metrics: Metrics;
  logger: Logger;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<Telemetry> {
  const { env, logger } = options;
  const provider = registerOnce();
  const histograms = new LatencyHistograms(options.metrics);
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) {
    const measuring = new MeasuringTracerProvider((name, attributes, seconds) =>
      histograms.record(name, attributes, seconds),
    );
    provider.current = measuring;
    return {
      exporting: false,
      async shutdown() {
        if (provider.current === measuring) provider.current = undefined;
      },
    };
  }
  const [{ BatchSpanProcessor, TracerProvider }, { resourceFromAttributes }, { OTLPTraceExporter }] = await Promise.all(
    [
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/exporter-trace-otlp-http"),
    ],
  );
  const exporter = new BatchSpanProcessor({
    exporter: new OTLPTraceExporter({
      url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${endpoint.replace(/\/+$/, "")}/v1/traces`,
    }),
    scheduledDelayMillis: 1000,
  });
  const exporting = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "roundtable" }),
    idGenerator: fixedIdGenerator,
    spanProcessors: [histograms, exporter],
  });
  provider.current = exporting;
  logger.info({ endpoint }, "exporting traces over OTLP/HTTP");
  return {
    exporting: true,
    async shutdown() {
      if (provider.current === exporting) provider.current = undefined;
      await exporter.shutdown().catch((error: unknown) => logger.warn({ err: error }, "trace export failed at stop"));
    },
  };
}
