import { randomBytes } from "node:crypto";
import type { SpanContext } from "@opentelemetry/api";
import type { IdGenerator } from "@opentelemetry/sdk-trace";

/**
 * Random ids, except for a span started inside {@link FixedIdGenerator.startWith}: that one
 * gets the given trace and span ids (a turn's span, whose ids derive from the turn id).
 * (Random ids made here, not by the SDK's generator: the SDK is loaded only when exporting.)
 */
class FixedIdGenerator implements IdGenerator {
  private next: SpanContext | undefined;

  generateTraceId(): string {
    return this.next?.traceId ?? randomBytes(16).toString("hex");
  }

  generateSpanId(): string {
    return this.next?.spanId ?? randomBytes(8).toString("hex");
  }

  /** Runs `start` (which starts exactly one root span, synchronously) with these ids. */
  startWith<T>(ids: SpanContext, start: () => T): T {
    this.next = ids;
    try {
      return start();
    } finally {
      this.next = undefined;
    }
  }
}

/** The one generator of this process (the tracer provider is registered once). */
export const fixedIdGenerator = new FixedIdGenerator();
