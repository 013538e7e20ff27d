import { GlobalCheckpoint, GlobalCheckpointStart } from "@helpdesk/domain"
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { checkpointOf, checkpointText, parseCheckpointText, positionOf } from "../src/EventStore/Checkpoint.js"

describe("the PostgreSQL store's global checkpoint", () => {
  it("holds a (transaction id, global position) and gives it back", () => {
    const position = { transactionId: 18446744073709551615n, globalPosition: 9223372036854775807n }
    expect(positionOf(checkpointOf(position))).toEqual(position)
  })

  it("is the port's start at (0, 0), whose text is 0:0", () => {
    expect(checkpointOf({ transactionId: 0n, globalPosition: 0n })).toBe(GlobalCheckpointStart)
    expect(positionOf(GlobalCheckpointStart)).toEqual({ transactionId: 0n, globalPosition: 0n })
    expect(checkpointText(GlobalCheckpointStart)).toBe("0:0")
    expect(parseCheckpointText("0:0")).toEqual(Option.some(GlobalCheckpointStart))
  })

  it("reads back only the text it writes", () => {
    const c = checkpointOf({ transactionId: 812n, globalPosition: 4051n })
    expect(checkpointText(c)).toBe("812:4051")
    expect(parseCheckpointText("812:4051")).toEqual(Option.some(c))
    for (const text of [
      "",
      "812",
      "812:",
      ":1",
      "01:2",
      "1:02",
      "-1:2",
      "1:2:3",
      "18446744073709551616:1",
      "1:9223372036854775808"
    ])
      expect(parseCheckpointText(text), text).toEqual(Option.none())
  })

  it("refuses, as a defect, a checkpoint another store made", () => {
    expect(() => positionOf(GlobalCheckpoint.make("42"))).toThrow(/not a PostgreSQL global checkpoint/)
  })
})
