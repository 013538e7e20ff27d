import { describe, expect, it } from "@effect/vitest"
import { Temporal } from "temporal-polyfill"

describe("smoke", () => {
  it("runs", () => {
    expect(Temporal.Instant.fromEpochMilliseconds(0).toString()).toBe("1970-01-01T00:00:00Z")
  })
})
