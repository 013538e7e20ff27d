import { describe, expect, it } from "@effect/vitest"
import { Temporal } from "temporal-polyfill"
import { buildZoneTable, makeMinuteOffsetProbe, makeOffsetProbe, offsetAt, resolveWallTime } from "../src/ZoneTable.js"
import { transitionsBetween } from "./reference.js"

const ZONES = [
  "America/New_York",
  "Australia/Lord_Howe",
  "America/Santiago",
  "Africa/Casablanca",
  "Asia/Gaza",
  "America/Sao_Paulo",
  "Pacific/Apia",
  "Asia/Kolkata",
  // Rules the transition search predicts differently: same date (Tehran until 2022), last Friday or
  // Thursday (Cairo, Amman), Ramadan breaks (El Aaiun), a two-hour change (Troll), changes of standard
  // offset (Volgograd, Juba, Nuuk), half-hour and 45-minute offsets, southern hemisphere.
  "Asia/Tehran",
  "Africa/Cairo",
  "Asia/Amman",
  "Asia/Damascus",
  "Asia/Beirut",
  "Africa/El_Aaiun",
  "Asia/Hebron",
  "Antarctica/Troll",
  "Europe/Volgograd",
  "Africa/Juba",
  "America/Nuuk",
  "America/Havana",
  "America/Asuncion",
  "Pacific/Chatham",
  "Pacific/Norfolk",
  "Pacific/Fiji",
  "Australia/Adelaide",
  "America/St_Johns",
  "Europe/Dublin",
  "America/Mexico_City"
]

describe("the zone offset table", () => {
  it.each(ZONES)("lists exactly the transitions Temporal knows in %s, 2010–2040", (zone) => {
    const table = buildZoneTable(zone, 2010, 2040)
    const expected = transitionsBetween(zone, table.windowStart, table.windowEnd)
    expect(Array.from(table.transitions).map((t) => new Date(t).toISOString())).toEqual(
      expected.map((t) => new Date(t).toISOString())
    )
    for (let i = 0; i < expected.length; i++) {
      const t = expected[i]!
      const before = Temporal.Instant.fromEpochMilliseconds(t - 1).toZonedDateTimeISO(zone).offsetNanoseconds / 1e6
      const after = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(zone).offsetNanoseconds / 1e6
      expect([offsetAt(table, t - 1), offsetAt(table, t)]).toEqual([before, after])
    }
  })

  it("reads the same offsets at fixed positions as the exact reader, across 24-hour changes", () => {
    for (const zone of [
      ...ZONES,
      "Pacific/Kiritimati",
      "Pacific/Chatham",
      "Asia/Kathmandu",
      "America/St_Johns",
      "UTC"
    ]) {
      const fast = makeMinuteOffsetProbe(zone)
      const exact = makeOffsetProbe(zone)
      let seed = 7
      for (let i = 0; i < 400; i++) {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
        // Whole minutes from 1970 to 2060, and the days around Samoa's skipped 30 December 2011.
        const instant =
          i < 300
            ? Math.floor((seed / 2_147_483_648) * 47_000_000) * 60_000
            : Date.UTC(2011, 11, 28) + Math.floor((seed / 2_147_483_648) * 4 * 1440) * 60_000
        expect(fast(instant), `${zone} ${new Date(instant).toISOString()}`).toBe(exact(instant))
      }
    }
  })

  it("resolves wall times the compatible way inside and outside its window", () => {
    const table = buildZoneTable("America/New_York", 2020, 2030)
    const wall = (iso: string) => Date.parse(`${iso}Z`)
    for (const [local, instant] of [
      ["2024-03-10T02:30:00", "2024-03-10T07:30:00Z"], // gap: forward by an hour
      ["2024-11-03T01:30:00", "2024-11-03T05:30:00Z"], // repeated: the earlier one
      ["2024-11-03T02:00:00", "2024-11-03T07:00:00Z"],
      ["2035-03-11T02:30:00", "2035-03-11T07:30:00Z"], // outside the window: from Intl
      ["2035-11-04T01:30:00", "2035-11-04T05:30:00Z"],
      ["1999-04-04T02:30:00", "1999-04-04T07:30:00Z"]
    ] as const) {
      expect(new Date(resolveWallTime(table, wall(local))).toISOString(), local).toBe(new Date(instant).toISOString())
    }
  })
})
