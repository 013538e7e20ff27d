import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { normalizeColor, tagNameKey } from "../src/Tags/Tag.js"

const hex = FastCheck.stringMatching(/^[0-9a-fA-F]{6}$/)

describe("tag colors and names", () => {
  it.prop("#rrggbb in any case is stored lowercase", [hex], ([digits]) => {
    assert.strictEqual(normalizeColor(`#${digits}`), `#${digits.toLowerCase()}`)
    assert.strictEqual(normalizeColor(` #${digits} `), `#${digits.toLowerCase()}`)
  })

  it.prop("other lengths and a missing # are refused", [hex, FastCheck.integer({ min: 1, max: 5 })], ([digits, n]) => {
    assert.isUndefined(normalizeColor(digits))
    assert.isUndefined(normalizeColor(`#${digits.slice(0, n)}`))
    assert.isUndefined(normalizeColor(`#${digits}0`))
  })

  it("empty means none", () => {
    assert.strictEqual(normalizeColor(""), "")
    assert.strictEqual(normalizeColor("   "), "")
  })

  it.prop(
    "names differing only in case and surrounding spaces share a key",
    [FastCheck.string({ maxLength: 20 })],
    ([name]) => {
      assert.strictEqual(tagNameKey(` ${name.toUpperCase()} `), tagNameKey(name.toLowerCase()))
    }
  )
})
