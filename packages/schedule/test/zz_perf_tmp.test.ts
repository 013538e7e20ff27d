import { it } from "vitest"
import { compileSchedule, nextOpenAfter, isOpenAt } from "@helpdesk/schedule"
it("perf", () => {
  const day = { opensAt: "00:00", closesAt: "00:00" }
  const weeklyHours = { mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day }
  for (const date of ["2027-01-01", "2099-01-01", "2500-01-01", "9999-12-31"]) {
    const s = compileSchedule({ timeZone: "Europe/Berlin", weeklyHours, exceptions: [{ date, opensAt: null, closesAt: null }] })
    const t0 = performance.now()
    const n = nextOpenAfter(s, new Date())
    console.log(date, n?.toISOString(), isOpenAt(s, new Date()), (performance.now() - t0).toFixed(1), "ms")
  }
})
