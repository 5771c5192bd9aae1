import type { SpanContext } from "@opentelemetry/api";
import { type IdGenerator, RandomIdGenerator } from "@opentelemetry/sdk-trace";

/**
 * Random ids, except for a span started inside {@link FixedIdGenerator.startWith}: that one
 * gets the given trace and span ids (a turn's span, whose ids derive from the turn id).
 */
export class FixedIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private next: SpanContext | undefined;

  generateTraceId(): string {
    return this.next?.traceId ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.next?.spanId ?? this.random.generateSpanId();
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
