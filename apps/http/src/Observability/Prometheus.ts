import { type MetricPair, MetricState, Option } from "effect"

/** The media type of the Prometheus text exposition format (version 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

// Names and label names allow `[a-zA-Z_:][a-zA-Z0-9_:]*` (labels without `:`); anything else becomes `_`.
const metricName = (name: string) => name.replace(/[^a-zA-Z0-9_:]/g, "_").replace(/^(?=[0-9])/, "_")
const labelName = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, "_").replace(/^(?=[0-9])/, "_")

const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")
const escapeLabelValue = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')

/** A sample value as the format writes it: `+Inf`, `-Inf`, `NaN` or the number. */
export const formatValue = (value: number | bigint): string =>
  typeof value === "bigint"
    ? value.toString()
    : Number.isNaN(value)
      ? "NaN"
      : value === Number.POSITIVE_INFINITY
        ? "+Inf"
        : value === Number.NEGATIVE_INFINITY
          ? "-Inf"
          : String(value)

const labelSet = (labels: ReadonlyArray<readonly [string, string]>) =>
  labels.length === 0
    ? ""
    : `{${labels.map(([key, value]) => `${labelName(key)}="${escapeLabelValue(value)}"`).join(",")}}`

/** One metric family: its `# HELP`/`# TYPE` header and its samples, in the order they were added. */
interface Family {
  readonly type: "counter" | "gauge" | "histogram" | "summary"
  help: string | undefined
  readonly lines: Array<string>
}

/**
 * Renders a snapshot of Effect's metric registry (`Metric.snapshot`) in the Prometheus text exposition format:
 * one family per metric name (every tag set of it as labels), counters and gauges as they are, histograms as
 * cumulative `_bucket{le=…}` lines with `_sum` and `_count`, summaries as quantiles with `_sum` and `_count`, and
 * frequencies as counters labelled `key`. A name registered under two kinds keeps the first.
 */
export const renderPrometheus = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): string => {
  const families = new Map<string, Family>()
  const familyOf = (name: string, type: Family["type"], description: Option.Option<string>) => {
    const existing = families.get(name)
    if (existing !== undefined) {
      existing.help ??= Option.getOrUndefined(description)
      return existing.type === type ? existing : undefined
    }
    const created: Family = { type, help: Option.getOrUndefined(description), lines: [] }
    families.set(name, created)
    return created
  }
  for (const { metricKey, metricState } of pairs) {
    const name = metricName(metricKey.name)
    const labels = metricKey.tags.map((tag) => [tag.key, tag.value] as const)
    const sample = (suffix: string, value: number | bigint, extra: ReadonlyArray<readonly [string, string]> = []) =>
      `${name}${suffix}${labelSet([...labels, ...extra])} ${formatValue(value)}`
    if (MetricState.isCounterState(metricState)) {
      familyOf(name, "counter", metricKey.description)?.lines.push(sample("", metricState.count))
    } else if (MetricState.isGaugeState(metricState)) {
      familyOf(name, "gauge", metricKey.description)?.lines.push(sample("", metricState.value))
    } else if (MetricState.isHistogramState(metricState)) {
      const family = familyOf(name, "histogram", metricKey.description)
      if (family === undefined) continue
      // Effect's buckets are cumulative and end with the +Inf boundary.
      for (const [bound, count] of metricState.buckets)
        family.lines.push(sample("_bucket", count, [["le", formatValue(bound)]]))
      family.lines.push(sample("_sum", metricState.sum), sample("_count", metricState.count))
    } else if (MetricState.isSummaryState(metricState)) {
      const family = familyOf(name, "summary", metricKey.description)
      if (family === undefined) continue
      for (const [quantile, value] of metricState.quantiles)
        family.lines.push(
          sample(
            "",
            Option.getOrElse(value, () => Number.NaN),
            [["quantile", formatValue(quantile)]]
          )
        )
      family.lines.push(sample("_sum", metricState.sum), sample("_count", metricState.count))
    } else if (MetricState.isFrequencyState(metricState)) {
      const family = familyOf(name, "counter", metricKey.description)
      for (const [key, count] of metricState.occurrences) family?.lines.push(sample("", count, [["key", key]]))
    }
  }
  const text: Array<string> = []
  for (const [name, family] of families) {
    if (family.help !== undefined) text.push(`# HELP ${name} ${escapeHelp(family.help)}`)
    text.push(`# TYPE ${name} ${family.type}`, ...family.lines)
  }
  return text.length === 0 ? "" : `${text.join("\n")}\n`
}
