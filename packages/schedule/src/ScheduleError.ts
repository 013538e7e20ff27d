/** What kind of problem a `ScheduleIssue` is, for callers that map issues to their own messages. */
export type ScheduleIssueCode =
  | "required"
  | "invalid_type"
  | "invalid_time_zone"
  | "invalid_time"
  | "seconds_not_allowed"
  | "invalid_opening_time"
  | "unknown_weekday"
  | "invalid_date"
  | "incomplete_range"
  | "duplicate_date"

/**
 * One problem in a schedule input. `path` leads from the input to the offending value with the input's
 * own (camelCase) keys and array indexes, e.g. `["weeklyHours", "mon", "opensAt"]` or
 * `["exceptions", 2, "date"]`; `message` says what is wrong and what is accepted.
 */
export interface ScheduleIssue {
  readonly path: ReadonlyArray<string | number>
  readonly code: ScheduleIssueCode
  readonly message: string
}

/** Thrown by `compileSchedule` for an invalid input; `issues` lists every problem found, not just the first. */
export class ScheduleError extends Error {
  override readonly name = "ScheduleError"
  readonly issues: ReadonlyArray<ScheduleIssue>

  constructor(issues: ReadonlyArray<ScheduleIssue>) {
    super(
      `Invalid schedule: ${issues.map((issue) => `${issue.path.length === 0 ? "(input)" : issue.path.join(".")}: ${issue.message}`).join("; ")}`
    )
    this.issues = issues
  }
}
