import { assert, describe, it } from "@effect/vitest"
import { FastCheck, String as Str } from "effect"
import { columnOfField, fieldOfColumn, MAX_REMEMBERED_NAMES, rememberedNames } from "../src/Database/ColumnNames.js"

const word = FastCheck.stringMatching(/^[a-z][a-z0-9]{0,8}$/)
const column = FastCheck.array(word, { minLength: 1, maxLength: 4 }).map((words) => words.join("_"))

describe("column and field names", () => {
  it("given any snake_case column, its field name is the conversion's, on first and later uses alike", () => {
    FastCheck.assert(
      FastCheck.property(column, (name) => {
        const expected = Str.snakeToCamel(name)
        assert.strictEqual(fieldOfColumn(name), expected)
        assert.strictEqual(fieldOfColumn(name), expected)
        assert.strictEqual(columnOfField(expected), Str.camelToSnake(expected))
      })
    )
  })

  it("when a name was converted before, the conversion is not run again", () => {
    let runs = 0
    const convert = rememberedNames((name) => {
      runs++
      return name.toUpperCase()
    })
    assert.deepStrictEqual(
      [convert("ticket_id"), convert("ticket_id"), convert("view")],
      ["TICKET_ID", "TICKET_ID", "VIEW"]
    )
    assert.strictEqual(runs, 2)
  })

  it("given more distinct names than it remembers, every name is still converted, the ones past the bound each time", () => {
    let runs = 0
    const convert = rememberedNames((name) => {
      runs++
      return `${name}!`
    })
    const names = Array.from({ length: MAX_REMEMBERED_NAMES + 10 }, (_, i) => `column_${i}`)
    for (const name of names) assert.strictEqual(convert(name), `${name}!`)
    for (const name of names) assert.strictEqual(convert(name), `${name}!`)
    assert.strictEqual(runs, MAX_REMEMBERED_NAMES + 20)
  })
})
