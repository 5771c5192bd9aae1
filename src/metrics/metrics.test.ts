import { describe, expect, it } from "vitest";
import { createMetrics, registerProcessMetrics, registerStatementMetric } from "./metrics.js";

describe("metrics", () => {
  it("renders a histogram with cumulative buckets, sum and count", async () => {
    const metrics = createMetrics();
    const latency = metrics.histogram("roundtable_step_seconds", "Step time.", [0.1, 1]);
    latency.observe({ step: "model" }, 0.05);
    latency.observe({ step: "model" }, 0.5);
    latency.observe({ step: "model" }, 3);
    expect(latency.count({ step: "model" })).toBe(3);
    expect(metrics.histogram("roundtable_step_seconds", "Step time.")).toBeDefined();
    expect(() => metrics.counter("roundtable_step_seconds", "x")).toThrow("already registered as a histogram");
    expect(await metrics.render()).toBe(
      [
        "# HELP roundtable_step_seconds Step time.",
        "# TYPE roundtable_step_seconds histogram",
        'roundtable_step_seconds_bucket{le="0.1",step="model"} 1',
        'roundtable_step_seconds_bucket{le="1",step="model"} 2',
        'roundtable_step_seconds_bucket{le="+Inf",step="model"} 3',
        'roundtable_step_seconds_sum{step="model"} 3.55',
        'roundtable_step_seconds_count{step="model"} 3',
        "",
      ].join("\n"),
    );
  });

  it("reads the statement count and the process's CPU time at each scrape", async () => {
    const metrics = createMetrics();
    let count = 3;
    registerStatementMetric(metrics, () => count);
    registerProcessMetrics(metrics);
    expect(await metrics.render()).toContain("roundtable_database_statements_total 3\n");
    count = 10;
    const text = await metrics.render();
    expect(text).toContain("roundtable_database_statements_total 10\n");
    expect(Number(/^process_cpu_seconds_total (\S+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
  });

  it("renders counters and gauges in the Prometheus text format", async () => {
    const metrics = createMetrics();
    const messages = metrics.counter("roundtable_messages_total", "Messages received.");
    messages.inc({ platform: "slack" });
    messages.inc({ platform: "slack" }, 2);
    messages.inc({ platform: "telegram" });
    const pending = metrics.gauge("roundtable_pending_approvals", "Approvals waiting.");
    pending.set({}, 4);
    pending.dec();
    expect(await metrics.render()).toBe(
      [
        "# HELP roundtable_messages_total Messages received.",
        "# TYPE roundtable_messages_total counter",
        'roundtable_messages_total{platform="slack"} 3',
        'roundtable_messages_total{platform="telegram"} 1',
        "# HELP roundtable_pending_approvals Approvals waiting.",
        "# TYPE roundtable_pending_approvals gauge",
        "roundtable_pending_approvals 3",
        "",
      ].join("\n"),
    );
  });

  it("returns the same metric for the same name, and label order does not matter", () => {
    const metrics = createMetrics();
    metrics.counter("a_total", "A.").inc({ x: "1", y: "2" });
    metrics.counter("a_total", "A.").inc({ y: "2", x: "1" });
    expect(metrics.counter("a_total", "A.").get({ x: "1", y: "2" })).toBe(2);
  });

  it("escapes label values and help text", async () => {
    const metrics = createMetrics();
    metrics.counter("odd_total", "Line one\nback\\slash").inc({ chat: 'a"b\\c\nd' });
    const text = await metrics.render();
    expect(text).toContain("# HELP odd_total Line one\\nback\\\\slash");
    expect(text).toContain('odd_total{chat="a\\"b\\\\c\\nd"} 1');
  });

  it("refuses bad names, a counter going down, and a name reused with another type", () => {
    const metrics = createMetrics();
    expect(() => metrics.counter("bad-name", "x")).toThrow("invalid metric name");
    expect(() => metrics.counter("ok_total", "x").inc({ "bad-label": 1 })).toThrow("invalid label name");
    expect(() => metrics.counter("ok_total", "x").inc({}, -1)).toThrow("can only go up");
    expect(() => metrics.gauge("ok_total", "x")).toThrow("already registered as a counter");
  });

  it("runs collectors before rendering", async () => {
    const metrics = createMetrics();
    let depth = 0;
    const gauge = metrics.gauge("queue_depth", "Jobs waiting.");
    metrics.onCollect(async () => {
      depth += 5;
      gauge.set({}, depth);
    });
    expect(await metrics.render()).toContain("queue_depth 5\n");
    expect(await metrics.render()).toContain("queue_depth 10\n");
  });

  it("process metrics", async () => {
    const metrics = createMetrics();
    registerProcessMetrics(metrics, 1_700_000_000_000);
    const text = await metrics.render();
    expect(text).toContain("process_start_time_seconds 1700000000\n");
    expect(text).toMatch(/process_resident_memory_bytes [1-9]\d*\n/);
  });
});
