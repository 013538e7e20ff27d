import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { forEachChanged, removedIds } from "../src/Tickets/ReadModel/MessageChanges.js"

interface Message {
  readonly id: number
  readonly text: string
}

const message = (id: number, text = `message ${id}`): Message => ({ id, text })

const changedOf = (before: ReadonlyArray<Message>, after: ReadonlyArray<Message>) => {
  const changed: Array<number> = []
  forEachChanged(before, after, (m) => changed.push(m.id))
  return changed
}

// The definitions the functions must agree with: a table of `before` by id.
const changedByTable = (before: ReadonlyArray<Message>, after: ReadonlyArray<Message>) => {
  const byId = new Map(before.map((m) => [m.id, m]))
  return after.filter((m) => byId.get(m.id) !== m).map((m) => m.id)
}
const removedByTable = (before: ReadonlyArray<Message>, after: ReadonlyArray<Message>) => {
  const kept = new Set(after.map((m) => m.id))
  return before.filter((m) => !kept.has(m.id)).map((m) => m.id)
}

/** What an event may do to a ticket's messages: add some, change some in place, remove some, reorder them. */
const edit = (before: ReadonlyArray<Message>) =>
  FastCheck.record({
    changes: FastCheck.array(FastCheck.nat({ max: Math.max(0, before.length - 1) }), { maxLength: 3 }),
    removals: FastCheck.array(FastCheck.nat({ max: Math.max(0, before.length - 1) }), { maxLength: 3 }),
    added: FastCheck.nat({ max: 3 }),
    addedAt: FastCheck.nat({ max: before.length }),
    reorder: FastCheck.boolean()
  }).map(({ changes, removals, added, addedAt, reorder }) => {
    let after: Array<Message> = before.map((m, i) => (changes.includes(i) ? message(m.id, `${m.text}, edited`) : m))
    after = after.filter((_, i) => !removals.includes(i))
    const fresh = Array.from({ length: added }, (_, k) => message(1000 + k))
    after.splice(Math.min(addedAt, after.length), 0, ...fresh)
    return reorder ? [...after].reverse() : after
  })

const ticketMessages = FastCheck.integer({ min: 0, max: 12 }).map((n) =>
  Array.from({ length: n }, (_, i) => message(i))
)

describe("MessageChanges", () => {
  it("given a reply, when the new list is the old one plus a message, then only that message changed", () => {
    const before = [message(1), message(2), message(3)]
    const after = [...before, message(4)]
    assert.deepStrictEqual(changedOf(before, after), [4])
    assert.deepStrictEqual(removedIds(before, after), [])
  })

  it("given a delivery update, when one message is a new object at its place, then only it changed", () => {
    const before = [message(1), message(2), message(3)]
    const after = [before[0]!, message(2, "delivered"), before[2]!]
    assert.deepStrictEqual(changedOf(before, after), [2])
    assert.deepStrictEqual(removedIds(before, after), [])
  })

  it("given a merge, when messages are removed and moved, then the new and moved-in ones are found by id", () => {
    const before = [message(1), message(2), message(3)]
    const after = [before[2]!, message(5), before[0]!]
    assert.deepStrictEqual(changedOf(before, after), [5])
    assert.deepStrictEqual(removedIds(before, after), [2])
  })

  it("agrees with a table by id for any edit of any list", () => {
    FastCheck.assert(
      FastCheck.property(
        ticketMessages.chain((before) => edit(before).map((after) => ({ before, after }))),
        ({ before, after }) => {
          assert.deepStrictEqual(changedOf(before, after), changedByTable(before, after))
          assert.deepStrictEqual(removedIds(before, after), removedByTable(before, after))
        }
      ),
      { numRuns: 2000 }
    )
  })
})
