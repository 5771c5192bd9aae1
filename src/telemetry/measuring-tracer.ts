import {
  type Attributes,
  type AttributeValue,
  type Context,
  context as contextApi,
  INVALID_SPAN_CONTEXT,
  type Span,
  type SpanContext,
  type SpanOptions,
  type TimeInput,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";

/** Where an ended span goes: its name, attributes and length in seconds. */
export type SpanSink = (name: string, attributes: Attributes, seconds: number) => void;

/**
 * Spans that only measure, for when nothing is exported: the latency histograms need each
 * span's name, attributes and length, not the OpenTelemetry SDK (with its resources and
 * semantic conventions, about a hundred modules and 7 MiB loaded at every start).
 */
export class MeasuringTracerProvider implements TracerProvider {
  private readonly tracer: Tracer;

  constructor(sink: SpanSink) {
    this.tracer = new MeasuringTracer(sink);
  }

  getTracer(): Tracer {
    return this.tracer;
  }
}

class MeasuringTracer implements Tracer {
  constructor(private readonly sink: SpanSink) {}

  startSpan(name: string, options: SpanOptions = {}): Span {
    return new MeasuredSpan(name, options.startTime ?? now(), options.attributes ?? {}, this.sink);
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const run = rest.at(-1) as F;
    const options = (typeof rest[0] === "object" ? rest[0] : {}) as SpanOptions;
    const parent = (rest.length === 3 ? rest[1] : contextApi.active()) as Context;
    const span = this.startSpan(name, options);
    return contextApi.with(trace.setSpan(parent, span), () => run(span)) as ReturnType<F>;
  }
}

class MeasuredSpan implements Span {
  private readonly attributes: Attributes;
  private readonly startMs: number;
  private ended = false;

  constructor(
    private name: string,
    startTime: TimeInput,
    attributes: Attributes,
    private readonly sink: SpanSink,
  ) {
    this.startMs = milliseconds(startTime);
    this.attributes = { ...attributes };
  }

  spanContext(): SpanContext {
    return INVALID_SPAN_CONTEXT;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (!this.ended) this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    if (!this.ended) Object.assign(this.attributes, attributes);
    return this;
  }

  addEvent(): this {
    return this;
  }

  addLink(): this {
    return this;
  }

  addLinks(): this {
    return this;
  }

  setStatus(): this {
    return this;
  }

  updateName(name: string): this {
    this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    this.sink(this.name, this.attributes, Math.max(0, milliseconds(endTime ?? now()) - this.startMs) / 1000);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  recordException(): void {}
}

/** Now, in milliseconds since the epoch with sub-millisecond precision. */
function now(): number {
  return performance.timeOrigin + performance.now();
}

function milliseconds(time: TimeInput): number {
  if (typeof time === "number") return time;
  if (time instanceof Date) return time.getTime();
  return time[0] * 1000 + time[1] / 1e6;
}

/**
 * The process's one registered provider (OpenTelemetry's global can be set once), handing
 * each span to the provider of the service running now: the SDK's when exporting, the
 * measuring one otherwise, none (no-op spans) before a service starts or after it stops.
 */
export class SwitchingTracerProvider implements TracerProvider {
  current: TracerProvider | undefined;
  private readonly tracers = new Map<string, Tracer>();

  getTracer(name: string, version?: string): Tracer {
    const key = `${name}@${version ?? ""}`;
    let tracer = this.tracers.get(key);
    if (!tracer) {
      tracer = new SwitchingTracer(() => this.current?.getTracer(name, version));
      this.tracers.set(key, tracer);
    }
    return tracer;
  }
}

class SwitchingTracer implements Tracer {
  constructor(private readonly target: () => Tracer | undefined) {}

  startSpan(name: string, options?: SpanOptions, context?: Context): Span {
    return this.target()?.startSpan(name, options, context) ?? trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const target = this.target();
    if (target) return (target.startActiveSpan as (...args: unknown[]) => ReturnType<F>)(name, ...rest);
    const run = rest.at(-1) as F;
    return run(trace.wrapSpanContext(INVALID_SPAN_CONTEXT)) as ReturnType<F>;
  }
}
