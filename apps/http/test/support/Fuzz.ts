import { assert } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { organization } from "./Fixtures.js"
import { patch, post } from "./TestApp.js"

/** A value of any JSON type, and strings and numbers a schema may trip on. */
export const anyValue = FastCheck.oneof(
  FastCheck.jsonValue({ maxDepth: 2 }),
  FastCheck.string({ maxLength: 300 }),
  FastCheck.integer(),
  FastCheck.boolean(),
  FastCheck.constant(null),
  FastCheck.uuid()
)

/** 40 objects with any subset of `fields`, each of any value, then 10 bare values: seeded, so runs repeat. */
export const bodies = (fields: ReadonlyArray<string>): ReadonlyArray<unknown> => [
  ...FastCheck.sample(
    FastCheck.record(Object.fromEntries(fields.map((field) => [field, anyValue])), { requiredKeys: [] }),
    { numRuns: 40, seed: 42 }
  ),
  ...FastCheck.sample(anyValue, { numRuns: 10, seed: 7 })
]

// A body as an HTML form would send it: the object's fields as text, anything else as no fields.
const asForm = (json: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries(typeof json === "object" && json !== null && !Array.isArray(json) ? json : {}).map(([k, v]) => [
      k,
      String(v)
    ])
  )

/**
 * Sends every {@link bodies} body of `fields` to a new organization's `directory` (`tags`, `companies`, …) as its
 * owner: as JSON to create (`POST`) and to update (`PATCH`) a resource created first from `seed`, and as a form to
 * create. Each answers its success status or 400, never a 500.
 */
export const directoryWrites = (directory: string, seed: Record<string, unknown>, fields: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const org = yield* organization()
    const collection = `${org.path}${directory}/`
    const token = org.ownerToken
    const target = yield* post(collection, { token, json: seed })
    assert.strictEqual(target.status, 201, target.text)
    for (const json of bodies(fields)) {
      const created = yield* post(collection, { token, json })
      assert.include([201, 400], created.status, JSON.stringify(json))
      const updated = yield* patch(`${collection}${target.body.id}/`, { token, json })
      assert.include([200, 400], updated.status, JSON.stringify(json))
      const form = yield* post(collection, { token, form: asForm(json) })
      assert.include([201, 400], form.status, JSON.stringify(json))
    }
  })
