/**
 * A tiny metrics registry: counters and gauges with labels, rendered in the Prometheus text
 * exposition format (version 0.0.4) for `/metrics`. No dependency.
 *
 * ```ts
 * metrics.counter("roundtable_messages_total", "Messages received").inc({ platform: "slack" });
 * metrics.gauge("roundtable_pending_approvals", "Approvals waiting for a decision").set({}, 3);
 * ```
 */

/** Label values by label name. All series of one metric should use the same label names. */
export type Labels = Readonly<Record<string, string | number | boolean>>;

/** A value that only goes up (restarts reset it; Prometheus handles that). */
export interface Counter {
  inc(labels?: Labels, amount?: number): void;
  /** The current value for these labels (0 when never incremented). */
  get(labels?: Labels): number;
}

/** A value that goes up and down. */
export interface Gauge {
  set(labels: Labels, value: number): void;
  inc(labels?: Labels, amount?: number): void;
  dec(labels?: Labels, amount?: number): void;
  get(labels?: Labels): number;
}

/** Observations counted into buckets (latencies), rendered as `_bucket`, `_sum` and `_count`. */
export interface Histogram {
  observe(labels: Labels, value: number): void;
  /** How many observations were made with these labels. */
  count(labels?: Labels): number;
}

/** Default buckets for latencies in seconds: 1 ms to 5 minutes. */
const latencyBuckets: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
];

/** What the engine, channels and the HTTP server are handed. */
export interface Metrics {
  /** The counter of this name, created on first use; the same object on later calls. */
  counter(name: string, help: string): Counter;
  /** The gauge of this name, created on first use; the same object on later calls. */
  gauge(name: string, help: string): Gauge;
  /** The histogram of this name (bucket upper bounds ascending), created on first use. */
  histogram(name: string, help: string, buckets?: readonly number[]): Histogram;
  /** Runs `collect` before each rendering: for gauges read from elsewhere (queue depth, memory). */
  onCollect(collect: () => void | Promise<void>): void;
  /** Runs the collectors, then renders every metric. */
  render(): Promise<string>;
}

/** The content type of {@link Metrics.render}'s output. */
export const prometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type Kind = "counter" | "gauge" | "histogram";

class Series {
  readonly values = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly kind: Kind,
  ) {}

  add(labels: Labels, amount: number): void {
    const key = seriesKey(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += amount;
    else this.values.set(key, { labels: { ...labels }, value: amount });
  }

  set(labels: Labels, value: number): void {
    this.values.set(seriesKey(labels), { labels: { ...labels }, value });
  }

  get(labels: Labels): number {
    return this.values.get(seriesKey(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.kind}`];
    for (const { labels, value } of this.values.values())
      lines.push(`${this.name}${renderLabels(labels)} ${formatNumber(value)}`);
    return lines.join("\n");
  }
}

/** Creates an empty registry. */
/** One histogram: per label set, a count per bucket, the sum and the count. */
class HistogramSeries {
  readonly kind = "histogram";
  private readonly values = new Map<string, { labels: Labels; buckets: number[]; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = seriesKey(labels);
    let entry = this.values.get(key);
    if (!entry) {
      entry = { labels: { ...labels }, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.values.set(key, entry);
    }
    for (const [index, bound] of this.bounds.entries())
      if (value <= bound) entry.buckets[index] = (entry.buckets[index] ?? 0) + 1;
    entry.sum += value;
    entry.count += 1;
  }

  count(labels: Labels): number {
    return this.values.get(seriesKey(labels))?.count ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} histogram`];
    for (const { labels, buckets, sum, count } of this.values.values()) {
      for (const [index, bound] of this.bounds.entries())
        lines.push(`${this.name}_bucket${renderLabels({ ...labels, le: formatNumber(bound) })} ${buckets[index] ?? 0}`);
      lines.push(`${this.name}_bucket${renderLabels({ ...labels, le: "+Inf" })} ${count}`);
      lines.push(`${this.name}_sum${renderLabels(labels)} ${formatNumber(sum)}`);
      lines.push(`${this.name}_count${renderLabels(labels)} ${count}`);
    }
    return lines.join("\n");
  }
}

export function createMetrics(): Metrics {
  const series = new Map<string, Series | HistogramSeries>();
  const collectors: Array<() => void | Promise<void>> = [];

  const register = (name: string, help: string, kind: "counter" | "gauge"): Series => {
    const existing = series.get(name);
    if (existing) {
      // Programming error: metric names are fixed in the code, each registered as one kind.
      if (existing.kind !== kind || !(existing instanceof Series))
        throw new Error(`metric ${name} is already registered as a ${existing.kind}`);
      return existing;
    }
    // Programming error: metric names are fixed in the code.
    if (!metricName.test(name)) throw new Error(`invalid metric name: ${JSON.stringify(name)}`);
    const created = new Series(name, help, kind);
    series.set(name, created);
    return created;
  };

  return {
    counter(name, help) {
      const target = register(name, help, "counter");
      return {
        inc(labels = {}, amount = 1) {
          // Programming error: the code counts events, never a negative amount.
          if (!(amount >= 0)) throw new Error(`counter ${name} can only go up (got ${amount})`);
          target.add(labels, amount);
        },
        get: (labels = {}) => target.get(labels),
      };
    },
    gauge(name, help) {
      const target = register(name, help, "gauge");
      return {
        set: (labels, value) => target.set(labels, value),
        inc: (labels = {}, amount = 1) => target.add(labels, amount),
        dec: (labels = {}, amount = 1) => target.add(labels, -amount),
        get: (labels = {}) => target.get(labels),
      };
    },
    histogram(name, help, buckets = latencyBuckets) {
      let target = series.get(name);
      // Programming error: metric names are fixed in the code, each registered as one kind.
      if (target && !(target instanceof HistogramSeries))
        throw new Error(`metric ${name} is already registered as a ${target.kind}`);
      if (!target) {
        // Programming error: metric names are fixed in the code.
        if (!metricName.test(name)) throw new Error(`invalid metric name: ${JSON.stringify(name)}`);
        target = new HistogramSeries(
          name,
          help,
          [...buckets].sort((a, b) => a - b),
        );
        series.set(name, target);
      }
      const histogram = target;
      return {
        observe: (labels, value) => histogram.observe(labels, value),
        count: (labels = {}) => histogram.count(labels),
      };
    },
    onCollect(collect) {
      collectors.push(collect);
    },
    async render() {
      for (const collect of collectors) await collect();
      const blocks = [...series.values()].map((item) => item.render());
      return blocks.length === 0 ? "" : `${blocks.join("\n")}\n`;
    },
  };
}

/** Registers process gauges (start time, resident memory, heap) on a registry. */
export function registerProcessMetrics(
  metrics: Metrics,
  startedAtMs: number = Date.now() - process.uptime() * 1000,
): void {
  const start = metrics.gauge(
    "process_start_time_seconds",
    "Start time of the process since the Unix epoch in seconds.",
  );
  const resident = metrics.gauge("process_resident_memory_bytes", "Resident memory size in bytes.");
  const heap = metrics.gauge("nodejs_heap_used_bytes", "V8 heap in use, in bytes.");
  const cpu = metrics.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.");
  start.set({}, Math.round(startedAtMs / 1000));
  metrics.onCollect(() => {
    const usage = process.memoryUsage();
    resident.set({}, usage.rss);
    heap.set({}, usage.heapUsed);
    const used = process.cpuUsage();
    cpu.inc({}, (used.user + used.system) / 1e6 - cpu.get());
  });
}

/** `roundtable_database_statements_total`, read from the store's own count at each scrape. */
export function registerStatementMetric(metrics: Metrics, statementCount: () => number): void {
  const statements = metrics.counter("roundtable_database_statements_total", "SQL statements sent to the database.");
  metrics.onCollect(() => statements.inc({}, statementCount() - statements.get()));
}

/** Also validates the label names, so a bad one fails where it is used, not at scrape time. */
function seriesKey(labels: Labels): string {
  for (const key of Object.keys(labels)) {
    // Programming error: label names are fixed in the code.
    if (!labelName.test(key) || key.startsWith("__")) throw new Error(`invalid label name: ${JSON.stringify(key)}`);
  }
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((key) => [key, String(labels[key])]),
  );
}

function renderLabels(labels: Labels): string {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return "";
  const parts = keys.map((key) => `${key}="${escapeLabelValue(String(labels[key]))}"`);
  return `{${parts.join(",")}}`;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}
