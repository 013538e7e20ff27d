import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { isEmail } from "../src/Http/Fields.js"
import { inboxEmailAddress, MAX_EMAIL_PREFIX_LENGTH, normalizeEmailPrefix } from "../src/Inboxes/EmailPrefix.js"

const word = FastCheck.stringMatching(/^[a-z0-9]{1,8}$/)
const separator = FastCheck.constantFrom("-", "_", ".")
const prefix = FastCheck.tuple(word, FastCheck.array(FastCheck.tuple(separator, word), { maxLength: 5 })).map(
  ([head, rest]) => head + rest.map(([s, w]) => s + w).join("")
)

describe("inbox e-mail prefixes", () => {
  it.prop("slugs up to 64 characters are accepted in any case and give a valid address", [prefix], ([p]) => {
    const value = p.slice(0, MAX_EMAIL_PREFIX_LENGTH).replace(/[-_.]+$/, "")
    assert.strictEqual(normalizeEmailPrefix(value.toUpperCase()), value)
    assert.isTrue(isEmail(inboxEmailAddress(value, "acme-support-x7k2p9", "helpdesk.localhost")))
  })

  it.prop(
    "a separator at either end, two in a row, or any other character is refused",
    [prefix, FastCheck.constantFrom(" ", "@", "/", "ü", "+", "--", "..", "._")],
    ([p, bad]) => {
      assert.isUndefined(normalizeEmailPrefix(`${p}${bad}x`))
      assert.isUndefined(normalizeEmailPrefix(`-${p}`))
      assert.isUndefined(normalizeEmailPrefix(`${p}.`))
    }
  )

  it("the limit is 64 characters", () => {
    assert.strictEqual(normalizeEmailPrefix("a".repeat(64)), "a".repeat(64))
    assert.isUndefined(normalizeEmailPrefix("a".repeat(65)))
  })

  it("the address puts the organization in the subdomain", () => {
    assert.strictEqual(inboxEmailAddress("billing", "Acme_Co", "mail.example.com"), "billing@acme-co.mail.example.com")
  })
})
