import type { Attributes } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { MeasuringTracerProvider, SwitchingTracerProvider } from "./measuring-tracer.js";

describe("spans that only measure", () => {
  it("hand each ended span's name, attributes and length to the sink, once", () => {
    const ended: { name: string; attributes: Attributes; seconds: number }[] = [];
    const tracer = new MeasuringTracerProvider((name, attributes, seconds) =>
      ended.push({ name, attributes, seconds }),
    ).getTracer();
    const span = tracer.startSpan("chat gpt-4.1", { startTime: new Date(1_000), attributes: { a: 1 } });
    span.setAttributes({ b: "two" });
    span.end(new Date(3_500));
    span.end(new Date(9_000));
    expect(ended).toEqual([{ name: "chat gpt-4.1", attributes: { a: 1, b: "two" }, seconds: 2.5 }]);
    expect(span.isRecording()).toBe(false);
  });

  it("go to the provider of the service running now, and nowhere when none is", () => {
    const switching = new SwitchingTracerProvider();
    const tracer = switching.getTracer("roundtable");
    const seen: string[] = [];
    tracer.startSpan("before").end();
    switching.current = new MeasuringTracerProvider((name) => seen.push(name));
    tracer.startSpan("during").end();
    switching.current = undefined;
    const after = tracer.startSpan("after");
    after.end();
    expect(seen).toEqual(["during"]);
    expect(after.isRecording()).toBe(false);
  });
});
