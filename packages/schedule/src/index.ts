/**
 * `@helpdesk/schedule`: exact business hours. Compile a schedule once, then ask whether it is open at
 * an instant and when it opens next, across DST gaps and repeated hours, overnight ranges and yearly
 * exceptions, and count business time (add it to an instant, or measure it between two). Zero runtime
 * dependencies; `Intl` only.
 */
export { addBusinessTime, businessTimeBetween } from "./businessTime.js"
export { type FormatOpeningOptions, formatOpening } from "./formatOpening.js"
export { isOpenAt, nextOpenAfter } from "./query.js"
export { ALWAYS_OPEN, compileSchedule, type Schedule } from "./Schedule.js"
export { ScheduleError, type ScheduleIssue, type ScheduleIssueCode } from "./ScheduleError.js"
export {
  type ExceptionInput,
  type ScheduleInput,
  WEEKDAYS,
  type Weekday,
  type WeeklyRange
} from "./ScheduleInput.js"
export { validateException } from "./validate.js"
