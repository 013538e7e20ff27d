import { ticketEventClasses } from "@helpdesk/domain"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { compileDecoder, refused } from "../../src/ticket/FastDecode.js"

/** What PostgreSQL jsonb gives back: the JSON text parsed again. */
const throughJson = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

/** Every path to a value inside a JSON document (object keys and array indexes). */
const pathsOf = (u: unknown, prefix: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  if (typeof u !== "object" || u === null) return []
  const entries: Array<[string | number, unknown]> = Array.isArray(u) ? u.map((v, i) => [i, v]) : Object.entries(u)
  return entries.flatMap(([key, value]) => [[...prefix, key], ...pathsOf(value, [...prefix, key])])
}

/** `u` with the value at `path` replaced (or removed when `value` is undefined). */
const replaced = (u: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown => {
  const copy = structuredClone(u) as Record<string | number, unknown>
  let parent = copy
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
  const last = path[path.length - 1]!
  if (value === undefined && !Array.isArray(parent)) delete parent[last]
  else parent[last] = value
  return copy
}

const corruption = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant("2026-01-05T09:00:00.000Z"),
  fc.constant("not a date"),
  fc.constant({}),
  fc.constant([])
)

describe.each(Object.entries(ticketEventClasses))("the compiled decoder of %s", (_, eventClass) => {
  const schema = Schema.Struct(eventClass.fields)
  const compiled = compileDecoder(schema.ast)!
  const viaEffect = Schema.decodeUnknownEither(schema)
  const encode = Schema.encodeSync(schema)

  /** It refuses what Effect refuses, and what it accepts, Effect accepts as the same value with its keys in order. */
  const agrees = (json: unknown) => {
    const fast = compiled(json)
    const effect = viaEffect(json)
    if (Either.isLeft(effect)) expect(fast).toBe(refused)
    else if (fast !== refused) {
      expect(fast).toEqual(effect.right)
      expect(JSON.stringify(fast)).toBe(JSON.stringify(effect.right))
    }
    return { fast, effect }
  }

  it("is compiled (its schema uses only the nodes it knows)", () => {
    expect(compiled).toBeDefined()
  })

  it("decodes stored events as Effect's decoder does", () => {
    fc.assert(
      fc.property(Arbitrary.make(schema), (value) => {
        const { fast } = agrees(throughJson(encode(value)))
        expect(fast).not.toBe(refused)
      }),
      { numRuns: 40 }
    )
  })

  it("refuses a corrupted event whenever Effect's decoder does", () => {
    fc.assert(
      fc.property(
        Arbitrary.make(schema).chain((value) => {
          const json = throughJson(encode(value))
          const paths = pathsOf(json)
          return fc.tuple(
            fc.constant(json),
            paths.length === 0 ? fc.constant([]) : fc.constantFrom(...paths),
            corruption
          )
        }),
        ([json, path, value]) => {
          agrees(path.length === 0 ? value : replaced(json, path, value))
        }
      ),
      { numRuns: 60 }
    )
  })
})
