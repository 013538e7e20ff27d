import { describe, expect, it } from "@effect/vitest"
import { buildZoneTable, makeMinuteOffsetProbe, type OffsetProbe, STEP_DAYS, stepDaysFor } from "../src/ZoneTable.js"
import { transitionsBetween } from "./reference.js"

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
const DAY_MS = 24 * HOUR_MS
const SCAN_STEP = 12 * HOUR_MS

/** The first minute in `(lo, hi]` whose offset differs from the one at `lo` (one change between them). */
const changeIn = (probe: OffsetProbe, lo: number, hi: number): number => {
  const before = probe(lo)
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / (2 * MINUTE_MS)) * MINUTE_MS
    if (probe(mid) === before) lo = mid
    else hi = mid
  }
  return hi
}

interface Stretch {
  readonly start: number
  readonly end: number
  readonly offset: number
}

/** Every stretch of one offset shorter than `limit`, found by reading the offset every 12 hours, then to the minute. */
const shortStretches = (zone: string, from: number, to: number, limit: number): Array<Stretch> => {
  const probe = makeMinuteOffsetProbe(zone)
  const found: Array<Stretch> = []
  let previous = probe(from)
  let start: number | undefined
  let startScan = 0
  for (let t = from + SCAN_STEP; t < to; t += SCAN_STEP) {
    const offset = probe(t)
    if (offset === previous) continue
    // The stretch of `previous` that began near `startScan` ended in (t − 12 h, t].
    if (start !== undefined && t - startScan < limit + DAY_MS) {
      const exactStart = changeIn(probe, startScan - SCAN_STEP, startScan)
      const exactEnd = changeIn(probe, t - SCAN_STEP, t)
      if (exactEnd - exactStart < limit) found.push({ start: exactStart, end: exactEnd, offset: previous })
    }
    start = t
    startScan = t
    previous = offset
  }
  return found
}

/** Every zone `Intl` lists, 16 to a test, so no test holds the worker long enough to time out its messages. */
const ZONE_GROUPS = (() => {
  const zones = Intl.supportedValuesOf("timeZone")
  return Array.from({ length: Math.ceil(zones.length / 16) }, (_, i) => zones.slice(i * 16, (i + 1) * 16))
})()

describe("the zone table's sampling premise", () => {
  // Independent of the builder and of the Temporal polyfill (whose steps are the same list): a plain scan
  // of `Intl` every 12 hours, 1970–2100, for every zone. A stretch under 12 hours could slip through the
  // scan; the tz database has none since 1970.
  it.each(ZONE_GROUPS.map((zones) => [`${zones[0]}…${zones[zones.length - 1]}`, zones] as const))(
    "no zone from %s has a stretch of one offset shorter than its step, 1970–2100",
    async (_, zones) => {
      // Let the worker answer the runner's messages between groups: the whole file runs for minutes.
      await new Promise((resolve) => setImmediate(resolve))
      const from = Date.UTC(1970, 0, 1)
      const to = Date.UTC(2100, 0, 1)
      const violations: Array<string> = []
      for (const zone of zones) {
        const step = stepDaysFor(zone) * DAY_MS
        for (const stretch of shortStretches(zone, from, to, STEP_DAYS * DAY_MS)) {
          const days = (stretch.end - stretch.start) / DAY_MS
          if (stretch.end - stretch.start < step) {
            violations.push(
              `${zone}: ${stretch.offset / HOUR_MS} h from ${new Date(stretch.start).toISOString()} for ${days.toFixed(2)} days, shorter than its step`
            )
          }
        }
      }
      expect(violations).toEqual([])
    }
  )

  it("finds Palestine's week-long summer times (2040, 2054, 2072), which only a fine step sees", () => {
    for (const zone of ["Asia/Gaza", "Asia/Hebron"]) {
      const stretches = shortStretches(zone, Date.UTC(2030, 0, 1), Date.UTC(2080, 0, 1), 8 * DAY_MS)
      expect(stretches.map((s) => new Date(s.start).toISOString().slice(0, 10))).toEqual([
        "2040-10-20",
        "2054-03-28",
        "2072-10-22"
      ])
      for (const [fromYear, toYear] of [
        [2016, 2046],
        [2030, 2060],
        [2060, 2090]
      ] as const) {
        const table = buildZoneTable(zone, fromYear, toYear)
        expect(Array.from(table.transitions), `${zone} ${fromYear}–${toYear}`).toEqual(
          transitionsBetween(zone, table.windowStart, table.windowEnd)
        )
      }
    }
  })
})
