import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { parseUuid } from "../src/Companies/CompanyId.js"
import { domainOfEmail, normalizeDomain } from "../src/Companies/EmailDomain.js"

describe("company ids", () => {
  it.prop(
    "any UUID parses to its lowercase hyphenated form, with or without hyphens, in any case",
    [FastCheck.uuid()],
    ([uuid]) => {
      assert.strictEqual(parseUuid(uuid.toUpperCase()), uuid.toLowerCase())
      assert.strictEqual(parseUuid(uuid.replace(/-/g, "")), uuid.toLowerCase())
      assert.strictEqual(parseUuid(` ${uuid} `), uuid.toLowerCase())
    }
  )

  it.prop(
    "a UUID with one character missing or one non-hex character is refused",
    [FastCheck.uuid(), FastCheck.nat(31)],
    ([uuid, n]) => {
      const hex = uuid.replace(/-/g, "")
      assert.isUndefined(parseUuid(hex.slice(0, n) + hex.slice(n + 1)))
      assert.isUndefined(parseUuid(`${hex.slice(0, n)}g${hex.slice(n + 1)}`))
    }
  )
})

describe("e-mail domains", () => {
  it.prop(
    "domain names are accepted lower-cased; a leading @ and a trailing dot are dropped",
    [FastCheck.domain()],
    ([domain]) => {
      const expected = domain.toLowerCase()
      // fast-check's domains may end in an all-digit label only when they are not IP-like; the rule refuses those.
      if (/\.\d+$/.test(expected)) return
      assert.strictEqual(normalizeDomain(domain.toUpperCase()), expected)
      assert.strictEqual(normalizeDomain(`@${domain}`), expected)
      assert.strictEqual(normalizeDomain(`${domain}.`), expected)
    }
  )

  it("refuses single labels, IP addresses, bad characters and over-long names", () => {
    for (const bad of [
      "localhost",
      "1.2.3.4",
      "a_b.test",
      "-a.test",
      "a-.test",
      "a..test",
      "",
      "a b.test",
      `${"a".repeat(64)}.test`
    ]) {
      assert.isUndefined(normalizeDomain(bad), bad)
    }
    const longest = `${Array.from({ length: 3 }, () => "a".repeat(61)).join(".")}.${"b".repeat(62)}.test`
    assert.strictEqual(longest.length, 253)
    assert.strictEqual(normalizeDomain(longest), longest)
    assert.isUndefined(normalizeDomain(`a${longest}`))
  })

  it.prop("the domain of an address is what follows the last @, lower-cased", [FastCheck.emailAddress()], ([email]) => {
    assert.strictEqual(domainOfEmail(email), email.split("@").pop()!.toLowerCase())
  })
})
