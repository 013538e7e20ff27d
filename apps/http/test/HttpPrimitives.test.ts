import { HttpApp, HttpServerResponse } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Either, FastCheck, FiberId, HashMap, Logger, Option, Schema } from "effect"
import * as TokenSecret from "../src/Auth/TokenSecret.js"
import { edge } from "../src/Http/Edge.js"
import * as Fields from "../src/Http/Fields.js"
import * as Ordering from "../src/Http/Ordering.js"
import * as Pagination from "../src/Http/Pagination.js"
import { decodeValue, formToObject } from "../src/Http/RequestBody.js"
import { isExpectedEnd } from "../src/Http/WireMiddleware.js"
import * as PublicId from "../src/Organizations/PublicId.js"
import { containsPattern, fold, terms } from "../src/Search/SearchText.js"

const decodeField = <A>(field: Schema.Schema<A, unknown>, input: unknown) =>
  Schema.decodeUnknownEither(field)(input).pipe(Either.mapLeft(() => "invalid"))

describe("Fields.boolean", () => {
  it.prop(
    "accepts true/false/1/0/yes/no in any case and nothing else among strings",
    [
      FastCheck.constantFrom("true", "false", "1", "0", "yes", "no"),
      FastCheck.array(FastCheck.boolean(), { minLength: 5, maxLength: 5 })
    ],
    ([word, upper]) => {
      const cased = [...word].map((c, i) => (upper[i % 5] ? c.toUpperCase() : c)).join("")
      const expected = word === "true" || word === "1" || word === "yes"
      assert.deepStrictEqual(decodeField(Fields.boolean, cased), Either.right(expected))
    }
  )
  it.prop("refuses any other string", [FastCheck.string()], ([s]) => {
    if (Fields.parseBooleanText(s) === undefined) assert.isTrue(Either.isLeft(decodeField(Fields.boolean, s)))
  })
})

describe("Fields.integer", () => {
  it.prop(
    "accepts an integer as number or digit string within its bounds",
    [FastCheck.integer({ min: -5000, max: 5000 })],
    ([n]) => {
      const field = Fields.integer({ minimum: 0, maximum: 3650 })
      const inRange = n >= 0 && n <= 3650
      assert.strictEqual(Either.isRight(decodeField(field, n)), inRange)
      assert.strictEqual(Either.isRight(decodeField(field, String(n))), inRange)
    }
  )
  it("refuses fractions, words, booleans and unsafe integers", () => {
    for (const input of [1.5, "1.5", "ten", true, "", " ", 2 ** 60, "1e3"])
      assert.isTrue(Either.isLeft(decodeField(Fields.integer(), input)), String(input))
  })
})

describe("Fields.text", () => {
  it.prop(
    "accepts up to maxLength code points after trimming",
    [FastCheck.string({ unit: "grapheme", maxLength: 20 })],
    ([s]) => {
      const field = Fields.text({ maxLength: 10, allowBlank: true })
      const trimmed = s.trim()
      assert.strictEqual(Either.isRight(decodeField(field, s)), [...trimmed].length <= 10)
    }
  )
})

describe("Fields.languageTag", () => {
  it("canonicalizes BCP 47 tags and refuses others", () => {
    assert.strictEqual(Fields.canonicalLanguageTag("pt-br"), "pt-BR")
    assert.strictEqual(Fields.canonicalLanguageTag("zh-hant-tw"), "zh-Hant-TW")
    for (const bad of ["", "e", "english", "en_US", "12", "en--US"])
      assert.isUndefined(Fields.canonicalLanguageTag(bad), bad)
  })
})

describe("Fields.uuid", () => {
  it("accepts UUIDs in any case and returns them lower-cased", () => {
    assert.deepStrictEqual(
      decodeField(Fields.uuid, "0F8FAD5B-D9CB-469F-A165-70867728950E"),
      Either.right("0f8fad5b-d9cb-469f-a165-70867728950e")
    )
    for (const bad of ["", "0f8fad5b", 12, "0f8fad5b-d9cb-469f-a165-70867728950g"])
      assert.isTrue(Either.isLeft(decodeField(Fields.uuid, bad)), String(bad))
  })
})

describe("request bodies", () => {
  const Body = Schema.Struct({
    ids: Fields.list(Fields.integer()),
    flag: Fields.optional(Fields.boolean),
    nested: Fields.optional(Schema.Struct({ opens_at: Fields.text({ maxLength: 5 }) }))
  })

  it.effect("form values: a list field wraps one value, others keep the last", () =>
    Effect.gen(function* () {
      const object = formToObject({ ids: ["7"], flag: ["no", "yes"], other: ["x"] }, Body)
      assert.deepStrictEqual(object, { ids: ["7"], flag: "yes", other: "x" })
      const decoded = yield* decodeValue(Body, object)
      assert.deepStrictEqual(decoded, { ids: [7], flag: true })
    })
  )

  it.effect("errors: missing, nested and list elements under their paths", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(decodeValue(Body, {}))
      assert.deepStrictEqual(missing.errors, { ids: ["This field is required."] })
      const nested = yield* Effect.flip(decodeValue(Body, { ids: [1, "x"], nested: { opens_at: "toolong" } }))
      assert.deepStrictEqual(nested.errors, {
        ids: { "1": ["A valid integer is required."] },
        nested: { opens_at: ["Ensure this field has no more than 5 characters."] }
      })
      const notList = yield* Effect.flip(decodeValue(Body, { ids: "1" }))
      assert.deepStrictEqual(notList.errors, { ids: ['Expected a list of items but got type "string".'] })
    })
  )

  it.effect("a cross-field rule lands under non_field_errors", () =>
    Effect.gen(function* () {
      const Range = Schema.Struct({ from: Fields.integer(), to: Fields.integer() }).pipe(
        Schema.filter((r) => r.from <= r.to || "`from` must not be after `to`.")
      )
      const error = yield* Effect.flip(decodeValue(Range, { from: 5, to: 1 }))
      assert.deepStrictEqual(error.errors, { non_field_errors: ["`from` must not be after `to`."] })
    })
  )
})

describe("Pagination.parse", () => {
  it.effect.prop(
    "page_size is clamped to 1..100 and the window follows the page",
    [FastCheck.integer({ min: 1, max: 10_000 }), FastCheck.integer({ min: 1, max: 1000 })],
    ([size, page]) =>
      Effect.gen(function* () {
        const parsed = yield* Pagination.parse({ page: String(page), page_size: String(size) })
        assert.strictEqual(parsed.pageSize, Math.min(size, 100))
        assert.strictEqual(parsed.offset, (page - 1) * parsed.pageSize)
      })
  )
  it.effect("defaults and refusals", () =>
    Effect.gen(function* () {
      assert.deepInclude(yield* Pagination.parse({}), { page: 1, pageSize: 25, offset: 0 })
      const badPage = yield* Effect.flip(Pagination.parse({ page: "0" }))
      assert.strictEqual(badPage._tag, "NotFound")
      const badSize = yield* Effect.flip(Pagination.parse({ page_size: "-1" }))
      assert.strictEqual(badSize._tag, "ValidationError")
    })
  )
})

describe("Ordering", () => {
  const spec = Ordering.make({
    columns: { name: "t.name", created_at: "t.created_at", id: "t.id" },
    defaults: ["-created_at"],
    tieBreaker: "t.id"
  })
  const text = (o: Ordering.Ordering<string>) => o.orderBy({ literal: (s: string) => s } as never) as unknown as string

  it.effect("appends the tie-breaker in the last term's direction unless present", () =>
    Effect.gen(function* () {
      assert.strictEqual(text(yield* spec.parse(undefined)), "t.created_at DESC, t.id DESC")
      assert.strictEqual(text(yield* spec.parse("name")), "t.name ASC, t.id ASC")
      assert.strictEqual(text(yield* spec.parse("-id,name")), "t.id DESC, t.name ASC")
      assert.strictEqual(text(yield* spec.parse(" name , -name ")), "t.name ASC, t.id ASC")
    })
  )
  it.effect.prop("never lets a field outside the allow-list into the SQL", [FastCheck.string()], ([raw]) =>
    Effect.gen(function* () {
      const result = yield* Effect.either(spec.parse(raw))
      if (Either.isRight(result)) assert.match(text(result.right), /^(t\.(name|created_at|id) (ASC|DESC)(, )?)+$/)
      else assert.include((result.left.errors.ordering as ReadonlyArray<string>)[0], "Allowed: created_at, id, name.")
    })
  )
})

describe("search text", () => {
  it("folds case and accents", () => {
    assert.strictEqual(fold("Ångström Café ZÜRICH Straße"), "angstrom cafe zurich strasse")
    assert.deepStrictEqual(terms("  Crème   brûlée "), ["creme", "brulee"])
    assert.strictEqual(containsPattern("50%_\\"), "%50\\%\\_\\\\%")
  })
  it.prop("folding is idempotent", [FastCheck.string({ unit: "grapheme" })], ([s]) => {
    assert.strictEqual(fold(fold(s)), fold(s))
  })
})

describe("identifiers", () => {
  it.prop(
    "public ids are slug-safe whatever the name",
    [FastCheck.string({ unit: "grapheme", maxLength: 300 })],
    ([name]) => {
      assert.match(PublicId.generate(name), /^[a-z0-9][-a-z0-9]*-[a-z2-9]{8}$/)
      assert.isAtMost(PublicId.generate(name).length, 49)
    }
  )
  it("tokens: prefixed, well-formed, distinct, hashed to 32 bytes", () => {
    const a = TokenSecret.generate("personal")
    const b = TokenSecret.generate("integration")
    assert.match(a, /^hd_pat_[A-Za-z0-9_-]{43}$/)
    assert.match(b, /^hd_int_[A-Za-z0-9_-]{43}$/)
    assert.isTrue(TokenSecret.isWellFormed(a))
    assert.isFalse(TokenSecret.isWellFormed(`${a}x`))
    assert.strictEqual(TokenSecret.hash(a).length, 32)
    assert.isTrue(TokenSecret.hashesEqual(TokenSecret.hash(a), TokenSecret.hash(a)))
    assert.isFalse(TokenSecret.hashesEqual(TokenSecret.hash(a), TokenSecret.hash(b)))
  })
})

describe("isExpectedEnd (what the wire middleware does not log as an unexpected failure)", () => {
  it("a client gone before its answer (499), an interruption and no route are expected; a defect or a 500 is not", () => {
    assert.isTrue(isExpectedEnd(Cause.fail(HttpServerResponse.empty({ status: 499 }))))
    assert.isTrue(isExpectedEnd(Cause.interrupt(FiberId.none)))
    assert.isTrue(isExpectedEnd(Cause.fail({ _tag: "RouteNotFound" })))
    assert.isFalse(isExpectedEnd(Cause.fail(HttpServerResponse.empty({ status: 500 }))))
    assert.isFalse(isExpectedEnd(Cause.die(new Error("boom"))))
  })
})

describe("the service's edge on a defect", () => {
  it("answers 500 with a request id, the same in the body, the header and the log line", async () => {
    const logged: Array<unknown> = []
    const app = edge({ allowedMethods: () => [] })(Effect.die(new Error("boom")) as unknown as HttpApp.Default).pipe(
      Effect.provide(
        Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ annotations }) => logged.push(HashMap.get(annotations, "request_id")))
        )
      )
    )
    const response = await HttpApp.toWebHandler(app)(
      // A Request carries no Host header of its own (links need one, see BaseUrl.test.ts).
      new Request("http://service/anything/", { headers: { host: "service" } })
    )
    assert.strictEqual(response.status, 500)
    const body = await response.json()
    assert.strictEqual(body.detail, "Internal server error.")
    assert.match(body.request_id, /^[0-9a-f-]{36}$/)
    assert.strictEqual(response.headers.get("x-request-id"), body.request_id)
    assert.deepStrictEqual(logged, [Option.some(body.request_id)])
  })
})
