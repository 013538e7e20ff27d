import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { emailDomain } from "../src/Companies/EmailDomain.js"
import * as Fields from "../src/Http/Fields.js"
import { decodeValue } from "../src/Http/RequestBody.js"
import { TicketUpdate } from "../src/Tickets/TicketRequests.js"

// A message that quotes the client's value must be built for any JSON value: `String` throws on an object whose
// `toString` is not a function and overflows the stack on a deeply nested list, and either was a 500.
const deepList = JSON.parse(`${"[".repeat(10_000)}${"]".repeat(10_000)}`) as unknown
const noToString = JSON.parse('{"toString": 1, "valueOf": 1}') as unknown

describe("fields quote any value in their messages", () => {
  it("shown: as String shows shallow values; a deep list is cut, an object is [object Object]", () => {
    assert.strictEqual(Fields.shown("abc"), "abc")
    assert.strictEqual(Fields.shown(7), "7")
    assert.strictEqual(Fields.shown(["a", ["b", null]]), String(["a", ["b", null]]))
    assert.strictEqual(Fields.shown(noToString), "[object Object]")
    assert.strictEqual(Fields.shown(Object.create(null)), "[object Object]")
    assert.strictEqual(Fields.shown(deepList), "…")
  })

  const fields = {
    choice: Fields.choice(["a", "b"]),
    languageTag: Fields.languageTag,
    uuid: Fields.uuid,
    emailDomain
  }
  for (const [name, field] of Object.entries(fields))
    for (const [label, value] of [
      ["a 10,000-deep list", deepList],
      ['{"toString": 1}', noToString]
    ] as const)
      it(`${name} refuses ${label} with a field message`, () => {
        const result = Schema.decodeUnknownEither(field as Schema.Schema<unknown, unknown>)(value)
        assert.isTrue(Either.isLeft(result))
      })

  it.effect("a ticket's status or classification as a deep list is a field error", () =>
    Effect.gen(function* () {
      for (const key of ["status", "classification"]) {
        const error = yield* Effect.flip(decodeValue(TicketUpdate, { [key]: deepList }))
        assert.deepStrictEqual(Object.keys(error.errors), [key])
      }
    })
  )
})
