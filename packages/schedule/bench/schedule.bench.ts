/**
 * `npm run bench -w @helpdesk/schedule`: ns/op of `isOpenAt` and `nextOpenAfter` on realistic and
 * adversarial schedules, the same questions answered the naive way (an `Intl.DateTimeFormat` lookup per
 * question and a minute-by-minute scan, capped) as the baseline, and the cost of building a zone's
 * offset table for the window; `addBusinessTime` and `businessTimeBetween` over 30 business days beside a
 * brute-force minute count. Prints figures only; nothing here asserts timings.
 *
 * `npm run bench -w @helpdesk/schedule -- <part>…` runs only the parts named: `queries`, `business-time`,
 * `zone-table`.
 */
import * as os from "node:os"
import { do_not_optimize, measure } from "mitata"
import {
  addBusinessTime,
  businessTimeBetween,
  compileSchedule,
  isOpenAt,
  nextOpenAfter,
  type Schedule,
  type ScheduleInput
} from "../src/index.js"
import { buildZoneTable, WINDOW_YEARS_AFTER, WINDOW_YEARS_BEFORE } from "../src/ZoneTable.js"

const office = { opensAt: "09:00", closesAt: "17:00" }
const holidays = ["2024-12-25", "2025-01-01", "2025-07-04", "2025-11-27", "2025-12-25", "2026-01-01"].map((date) => ({
  date,
  opensAt: null,
  closesAt: null
}))

/** 300 dated exceptions (closures and short days) and 20 yearly ones over 2024–2027. */
const manyExceptions = (() => {
  const exceptions: Array<{ date: string; opensAt: string | null; closesAt: string | null; repeatsYearly?: boolean }> =
    []
  for (let i = 0; i < 300; i++) {
    const day = new Date(Date.UTC(2024, 0, 1) + i * 4 * 86_400_000).toISOString().slice(0, 10)
    exceptions.push(
      i % 3 === 0 ? { date: day, opensAt: "10:00", closesAt: "14:30:30" } : { date: day, opensAt: null, closesAt: null }
    )
  }
  for (let m = 1; m <= 10; m++) {
    exceptions.push({
      date: `2019-${String(m).padStart(2, "0")}-15`,
      opensAt: null,
      closesAt: null,
      repeatsYearly: true
    })
    exceptions.push({
      date: `2020-${String(m).padStart(2, "0")}-28`,
      opensAt: "07:00",
      closesAt: "23:00",
      repeatsYearly: true
    })
  }
  return exceptions
})()

const SCHEDULES: ReadonlyArray<readonly [string, ScheduleInput]> = [
  [
    "office hours, New York",
    {
      timeZone: "America/New_York",
      weeklyHours: { mon: office, tue: office, wed: office, thu: office, fri: office },
      exceptions: holidays
    }
  ],
  [
    "overnight ranges, Santiago",
    {
      timeZone: "America/Santiago",
      weeklyHours: {
        mon: { opensAt: "18:00", closesAt: "03:00" },
        tue: { opensAt: "01:00", closesAt: "10:00" },
        fri: { opensAt: "22:00", closesAt: "06:00" },
        sat: { opensAt: "20:00", closesAt: "00:00" }
      }
    }
  ],
  [
    "320 exceptions, Sydney",
    {
      timeZone: "Australia/Sydney",
      weeklyHours: { mon: office, tue: office, wed: office, thu: office, fri: office },
      exceptions: manyExceptions
    }
  ],
  [
    "round the clock, yearly holidays closed, Berlin",
    {
      timeZone: "Europe/Berlin",
      weeklyHours: Object.fromEntries(
        ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((day) => [day, { opensAt: "00:00", closesAt: "24:00" }])
      ),
      exceptions: ["12-24", "12-25", "12-26", "01-01"].map((monthDay) => ({
        date: `2020-${monthDay}`,
        opensAt: null,
        closesAt: null,
        repeatsYearly: true
      }))
    }
  ],
  [
    "only a yearly 29 February, Berlin",
    {
      timeZone: "Europe/Berlin",
      weeklyHours: {},
      exceptions: [{ date: "2024-02-29", opensAt: "09:00", closesAt: "17:00", repeatsYearly: true }]
    }
  ]
]

/** 1024 instants spread over 2024–2027 (fixed seed), cycled through so no answer is cached anywhere. */
const INSTANTS: ReadonlyArray<Date> = (() => {
  let seed = 12_345
  const span = Date.UTC(2028, 0, 1) - Date.UTC(2024, 0, 1)
  return Array.from({ length: 1024 }, () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
    return new Date(Date.UTC(2024, 0, 1) + Math.floor(((seed / 2_147_483_648) * span) / 60_000) * 60_000)
  })
})()

// ---- the naive baseline: one Intl lookup per question, a minute-by-minute scan for the next opening ----
const KEYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const
const WEEKDAY_INDEX: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 }
const minutesOf = (text: string) => Number(text.slice(0, 2)) * 60 + Number(text.slice(3, 5))

const naiveIsOpenAt = (input: ScheduleInput, format: Intl.DateTimeFormat, at: Date): boolean => {
  const parts: Record<string, string> = {}
  for (const part of format.formatToParts(at)) parts[part.type] = part.value
  const date = `${parts.year}-${parts.month}-${parts.day}`
  const weekday = WEEKDAY_INDEX[parts.weekday!]!
  const minute = Number(parts.hour) * 60 + Number(parts.minute)
  const rangeOn = (dateText: string, day: number) => {
    const exception = input.exceptions?.find(
      (e) =>
        e.date === dateText || (e.repeatsYearly === true && e.date.slice(5) === dateText.slice(5) && e.date <= dateText)
    )
    if (exception !== undefined) {
      return exception.opensAt == null || exception.closesAt == null
        ? null
        : { opensAt: exception.opensAt, closesAt: exception.closesAt }
    }
    return input.weeklyHours[KEYS[day]!] ?? null
  }
  const today = rangeOn(date, weekday)
  if (today !== null) {
    const open = minutesOf(today.opensAt)
    const close = minutesOf(today.closesAt)
    if (close > open ? minute >= open && minute < close : minute >= open) return true
  }
  const yesterdayDate = new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10)
  const yesterday = rangeOn(yesterdayDate, (weekday + 6) % 7)
  if (yesterday !== null) {
    const open = minutesOf(yesterday.opensAt)
    const close = minutesOf(yesterday.closesAt)
    if (close <= open && minute < close) return true
  }
  return false
}

/** Capped at 14 days of minutes, as such scans are, so it finishes (and misses anything later). */
const NAIVE_SCAN_MINUTES = 14 * 24 * 60
const naiveNextOpenAfter = (input: ScheduleInput, format: Intl.DateTimeFormat, at: Date): Date | null => {
  let t = Math.floor(at.getTime() / 60_000) * 60_000
  let wasOpen = naiveIsOpenAt(input, format, new Date(t))
  for (let i = 0; i < NAIVE_SCAN_MINUTES; i++) {
    t += 60_000
    const open = naiveIsOpenAt(input, format, new Date(t))
    if (open && !wasOpen) return new Date(t)
    wasOpen = open
  }
  return null
}

const formatterFor = (timeZone: string) =>
  new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    weekday: "short",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit"
  })

// ---- measuring ----
/**
 * CPU time per call (user + system of this process), median of 5 batches of ~50 ms: on a shared
 * machine wall-clock figures include time spent waiting for a core; CPU time does not.
 */
const cpuNsPerCall = (fn: () => void): number => {
  let iterations = 1
  for (;;) {
    const start = process.cpuUsage()
    for (let k = 0; k < iterations; k++) fn()
    const used = process.cpuUsage(start)
    if (used.user + used.system >= 20_000 || iterations >= 1 << 24) break
    iterations *= 4
  }
  const batches: Array<number> = []
  for (let r = 0; r < 5; r++) {
    const start = process.cpuUsage()
    for (let k = 0; k < iterations; k++) fn()
    const used = process.cpuUsage(start)
    batches.push(((used.user + used.system) * 1000) / iterations)
  }
  return batches.sort((a, b) => a - b)[2]!
}

const formatNs = (ns: number) =>
  ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} µs` : `${ns.toFixed(0)} ns`

const record = async (what: string, fn: () => void, options: { min_cpu_time?: number; max_samples?: number } = {}) => {
  const stats = await measure(fn, { min_cpu_time: 300e6, ...options })
  const cpu = cpuNsPerCall(fn)
  console.log(
    `${what.padEnd(62)} ${formatNs(stats.p50).padStart(10)} ${formatNs(stats.p99).padStart(10)} ${formatNs(cpu).padStart(10)}`
  )
}

/**
 * Records a minute-scanning baseline: `call` asked about the next of the 1024 fixed instants each time, in fewer and
 * longer samples (a call takes milliseconds). The library's own calls stay written out: they take nanoseconds, and a
 * callback in their loop would be measured with them.
 */
const recordSlowBaseline = (what: string, call: (instant: Date) => unknown) => {
  let i = 0
  return record(
    what,
    () => {
      i = (i + 1) & 1023
      do_not_optimize(call(INSTANTS[i]!))
    },
    { min_cpu_time: 1e9, max_samples: 24 }
  )
}

// ---- business time: the brute-force minute count ----
const MINUTE_MS = 60_000
/** 30 business days of Monday to Friday: six calendar weeks; the budget: 30 days of 8 hours. */
const SPAN_MS = 42 * 86_400_000
const BUDGET_MINUTES = 30 * 480

/** Business minutes in `[from, from + span)`, asking `isOpenAt` at every minute (`from` is a whole minute). */
const minuteCountBetween = (schedule: Schedule, from: number, span: number): number => {
  let count = 0
  for (let t = from; t < from + span; t += MINUTE_MS) if (isOpenAt(schedule, new Date(t))) count++
  return count
}

/** The end of the `minutes`-th open minute from `from`, minute by minute (capped at 400 days). */
const minuteCountAdd = (schedule: Schedule, from: number, minutes: number): number | null => {
  let count = 0
  for (let t = from; t < from + 400 * 86_400_000; t += MINUTE_MS) {
    if (isOpenAt(schedule, new Date(t)) && ++count === minutes) return t + MINUTE_MS
  }
  return null
}

const PARTS = ["queries", "business-time", "zone-table"] as const
const selected = (part: (typeof PARTS)[number]) => {
  const asked = process.argv.slice(2)
  return asked.length === 0 || asked.includes(part)
}

const main = async () => {
  console.log(
    `@helpdesk/schedule benchmark — ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`
  )
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`
  )
  console.log("Each call asks about the next of 1024 fixed instants in 2024–2027.\n")
  console.log(`${"".padEnd(62)} ${"wall p50".padStart(10)} ${"wall p99".padStart(10)} ${"CPU/call".padStart(10)}`)

  for (const [name, input] of selected("queries") ? SCHEDULES : []) {
    const schedule = compileSchedule(input)
    const format = formatterFor(input.timeZone)
    let i = 0
    await record(`isOpenAt        ${name}`, () => {
      i = (i + 1) & 1023
      do_not_optimize(isOpenAt(schedule, INSTANTS[i]!))
    })
    await record(`nextOpenAfter   ${name}`, () => {
      i = (i + 1) & 1023
      do_not_optimize(nextOpenAfter(schedule, INSTANTS[i]!))
    })
    await record(`  baseline isOpenAt (Intl per lookup)`, () => {
      i = (i + 1) & 1023
      do_not_optimize(naiveIsOpenAt(input, format, INSTANTS[i]!))
    })
    await recordSlowBaseline(`  baseline nextOpenAfter (minute scan, capped at 14 days)`, (instant) =>
      naiveNextOpenAfter(input, format, instant)
    )
  }

  if (selected("business-time")) {
    console.log(
      `\nBusiness time over 30 business days: addBusinessTime(${BUDGET_MINUTES} min) and businessTimeBetween over 42 days`
    )
    for (const [name, input] of SCHEDULES.slice(0, 4)) {
      const schedule = compileSchedule(input)
      let i = 0
      await record(`addBusinessTime      ${name}`, () => {
        i = (i + 1) & 1023
        do_not_optimize(addBusinessTime(schedule, INSTANTS[i]!, BUDGET_MINUTES))
      })
      await record(`businessTimeBetween  ${name}`, () => {
        i = (i + 1) & 1023
        do_not_optimize(businessTimeBetween(schedule, INSTANTS[i]!, new Date(INSTANTS[i]!.getTime() + SPAN_MS)))
      })
      await recordSlowBaseline("  baseline addBusinessTime (isOpenAt per minute)", (instant) =>
        minuteCountAdd(schedule, instant.getTime(), BUDGET_MINUTES)
      )
      await recordSlowBaseline("  baseline businessTimeBetween (isOpenAt per minute)", (instant) =>
        minuteCountBetween(schedule, instant.getTime(), SPAN_MS)
      )
    }
  }

  if (!selected("zone-table")) return
  const year = new Date().getUTCFullYear()
  const from = year - WINDOW_YEARS_BEFORE
  const to = year + WINDOW_YEARS_AFTER + 1
  console.log(`\nZone offset table for ${from}-01-01..${to}-01-01 (${to - from} years), built uncached:`)
  const zones = [
    "UTC",
    "Asia/Kolkata",
    "America/New_York",
    "Europe/Berlin",
    "Australia/Lord_Howe",
    "America/Santiago",
    "Africa/Casablanca",
    "Asia/Gaza"
  ]
  for (const zone of zones) {
    await record(`compile table   ${zone}`, () => do_not_optimize(buildZoneTable(zone, from, to)), {
      min_cpu_time: 300e6,
      max_samples: 200
    })
  }
  console.log(`\n${everyZoneFigures(from, to)}`)
  const cached = SCHEDULES[0]![1]
  await record("compileSchedule office hours, New York (table cached)", () => do_not_optimize(compileSchedule(cached)))
}

/**
 * The same uncached build for every zone `Intl` lists: CPU median of 7 builds each (formatters made beforehand),
 * the spread over zones, and every zone at or over the 2 ms target (decision 0107).
 */
function everyZoneFigures(from: number, to: number): string {
  const zones = Intl.supportedValuesOf("timeZone")
  for (const zone of zones) buildZoneTable(zone, from, to)
  const figures = zones.map((zone) => {
    const times: Array<number> = []
    for (let i = 0; i < 7; i++) {
      const start = process.cpuUsage()
      do_not_optimize(buildZoneTable(zone, from, to))
      const used = process.cpuUsage(start)
      times.push((used.user + used.system) / 1000)
    }
    return { zone, ms: times.sort((a, b) => a - b)[3]! }
  })
  const sorted = figures.map((f) => f.ms).sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2)
  const over = figures.filter((f) => f.ms >= 2).map((f) => `${f.zone} ${f.ms.toFixed(2)} ms`)
  const slowest = [...figures]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map((f) => `${f.zone} ${f.ms.toFixed(2)} ms`)
  return [
    `every zone (${zones.length}), CPU median of 7 builds: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`,
    `  slowest: ${slowest.join(", ")}`,
    `  at or over 2 ms: ${over.length === 0 ? "none" : over.join(", ")}`
  ].join("\n")
}

await main()
