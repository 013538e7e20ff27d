import { assert, describe, it } from "@effect/vitest"
import { PresetFilterCriteria } from "@helpdesk/domain"
import { FastCheck, Schema } from "effect"
import {
  CHANNELS,
  CRITERION_NAMES,
  type CriteriaResult,
  EMPTY_CRITERIA,
  MAX_CRITERION_VALUES,
  MAX_SLA_DUE_WITHIN,
  MAX_TAG_NAME_LENGTH,
  MIN_SLA_DUE_WITHIN,
  validateCriteria
} from "../src/PresetFilters/Criteria.js"
import { defaultVisibility, refuseChange, refuseCreate } from "../src/PresetFilters/Permissions.js"

const errorsOf = (result: CriteriaResult) => {
  assert.isFalse(result.ok, "expected the criteria to be refused")
  return result.ok ? {} : result.errors
}

const criteriaOf = (result: CriteriaResult) => {
  if (!result.ok) assert.fail(`expected valid criteria, got ${JSON.stringify(result.errors)}`)
  return result.criteria
}

describe("validateCriteria", () => {
  it("given {}, constrains nothing and shows every criterion", () => {
    const criteria = criteriaOf(validateCriteria({}))
    assert.deepStrictEqual(criteria, EMPTY_CRITERIA)
    assert.deepStrictEqual(Object.keys(criteria), [...CRITERION_NAMES])
  })

  it("given every criterion with allowed values, keeps them (duplicates dropped, tag names trimmed)", () => {
    const given = {
      tags_include: [" vip ", "vip", "billing"],
      tags_exclude: ["spam"],
      assignee_ids: [3, "4", 3],
      statuses: ["created", "active"],
      waiting_on: ["", "customer"],
      inbox_ids: [1],
      channels: ["email", "whatsapp"],
      classifications: ["", "resolved"],
      priorities: ["urgent", "not_set"],
      is_snoozed: false,
      sla_breached: true,
      sla_due_within: 60
    } as const
    assert.deepStrictEqual(criteriaOf(validateCriteria(given)), {
      ...given,
      tags_include: ["vip", "billing"],
      assignee_ids: [3, 4]
    })
  })

  it("puts each bad value's message under its criterion name, not under an index", () => {
    const errors = errorsOf(validateCriteria({ statuses: ["active", "bogus"], priorities: ["critical"] }))
    assert.deepStrictEqual(Object.keys(errors).sort(), ["priorities", "statuses"])
    assert.strictEqual(errors.statuses!.length, 1)
    assert.isTrue(errors.statuses![0]!.startsWith('"bogus" is not a valid choice.'), errors.statuses![0])
    assert.include(errors.statuses![0]!, "created, active, closed")
    assert.isTrue(errors.priorities![0]!.startsWith('"critical" is not a valid choice.'))
  })

  it("refuses values of the wrong case or type in the enum lists", () => {
    for (const [key, value] of [
      ["statuses", "Active"],
      ["waiting_on", "nobody"],
      ["classifications", "pending"],
      ["priorities", 1],
      ["channels", "sms"],
      ["channels", "Email"]
    ] as const)
      assert.property(errorsOf(validateCriteria({ [key]: [value] })), key, `${key}: ${value}`)
  })

  it("accepts exactly the documented channels", () => {
    assert.deepStrictEqual(criteriaOf(validateCriteria({ channels: [...CHANNELS] })).channels, [...CHANNELS])
  })

  it("ids are positive integers (or digit strings from a form); 0, negatives, fractions and booleans are refused", () => {
    assert.deepStrictEqual(criteriaOf(validateCriteria({ assignee_ids: [1, "2"], inbox_ids: [9007199254740991] })), {
      ...EMPTY_CRITERIA,
      assignee_ids: [1, 2],
      inbox_ids: [9007199254740991]
    })
    for (const bad of [0, -1, 1.5, true, "x", null, "1e3", 9007199254740992])
      assert.property(errorsOf(validateCriteria({ assignee_ids: [bad] })), "assignee_ids", JSON.stringify(bad))
    assert.property(errorsOf(validateCriteria({ inbox_ids: ["abc"] })), "inbox_ids")
  })

  it("tag names: at most 100 characters, not blank, strings only", () => {
    const longest = "t".repeat(MAX_TAG_NAME_LENGTH)
    assert.deepStrictEqual(criteriaOf(validateCriteria({ tags_include: [longest] })).tags_include, [longest])
    assert.property(errorsOf(validateCriteria({ tags_include: [`${longest}x`] })), "tags_include")
    assert.property(errorsOf(validateCriteria({ tags_exclude: ["   "] })), "tags_exclude")
    assert.property(errorsOf(validateCriteria({ tags_exclude: [7] })), "tags_exclude")
  })

  it("lists hold at most 100 values", () => {
    const ids = Array.from({ length: MAX_CRITERION_VALUES }, (_, i) => i + 1)
    assert.strictEqual(criteriaOf(validateCriteria({ inbox_ids: ids })).inbox_ids.length, MAX_CRITERION_VALUES)
    assert.deepStrictEqual(errorsOf(validateCriteria({ inbox_ids: [...ids, 101] })), {
      inbox_ids: ["Ensure this field has no more than 100 elements."]
    })
  })

  it("a list criterion that is not a list is refused; null means empty", () => {
    assert.deepStrictEqual(errorsOf(validateCriteria({ statuses: "active" })), {
      statuses: ['Expected a list of items but got type "string".']
    })
    assert.deepStrictEqual(criteriaOf(validateCriteria({ statuses: null })).statuses, [])
  })

  it("is_snoozed: a boolean (also from form text), null or empty for any; anything else refused", () => {
    assert.strictEqual(criteriaOf(validateCriteria({ is_snoozed: true })).is_snoozed, true)
    assert.strictEqual(criteriaOf(validateCriteria({ is_snoozed: "no" })).is_snoozed, false)
    assert.strictEqual(criteriaOf(validateCriteria({ is_snoozed: null })).is_snoozed, null)
    assert.strictEqual(criteriaOf(validateCriteria({ is_snoozed: "" })).is_snoozed, null)
    assert.property(errorsOf(validateCriteria({ is_snoozed: "maybe" })), "is_snoozed")
    assert.property(errorsOf(validateCriteria({ is_snoozed: 2 })), "is_snoozed")
    assert.property(errorsOf(validateCriteria({ is_snoozed: [] })), "is_snoozed")
  })

  it("sla_breached: a boolean (also from form text), null or empty for any; anything else refused", () => {
    assert.strictEqual(criteriaOf(validateCriteria({ sla_breached: true })).sla_breached, true)
    assert.strictEqual(criteriaOf(validateCriteria({ sla_breached: "0" })).sla_breached, false)
    assert.strictEqual(criteriaOf(validateCriteria({ sla_breached: "" })).sla_breached, null)
    assert.deepStrictEqual(errorsOf(validateCriteria({ sla_breached: "sometimes" })), {
      sla_breached: ["Must be a boolean (true/false), or null for breached and not breached alike."]
    })
    assert.property(errorsOf(validateCriteria({ sla_breached: [true] })), "sla_breached")
  })

  it("sla_due_within: whole minutes from 1 to 525600 (a year), also as form digits; null or empty for any", () => {
    assert.strictEqual(MIN_SLA_DUE_WITHIN, 1)
    assert.strictEqual(MAX_SLA_DUE_WITHIN, 525_600)
    assert.strictEqual(criteriaOf(validateCriteria({ sla_due_within: 1 })).sla_due_within, 1)
    assert.strictEqual(criteriaOf(validateCriteria({ sla_due_within: 525_600 })).sla_due_within, 525_600)
    assert.strictEqual(criteriaOf(validateCriteria({ sla_due_within: "60" })).sla_due_within, 60)
    assert.strictEqual(criteriaOf(validateCriteria({ sla_due_within: null })).sla_due_within, null)
    assert.strictEqual(criteriaOf(validateCriteria({ sla_due_within: "" })).sla_due_within, null)
    assert.deepStrictEqual(errorsOf(validateCriteria({ sla_due_within: 0 })), {
      sla_due_within: ["Ensure this value is greater than or equal to 1."]
    })
    assert.deepStrictEqual(errorsOf(validateCriteria({ sla_due_within: 525_601 })), {
      sla_due_within: ["Ensure this value is less than or equal to 525600."]
    })
    for (const bad of [-5, 1.5, true, "1e3", " 60", "-1", "sixty", [60], { m: 60 }, 2 ** 53])
      assert.deepStrictEqual(
        errorsOf(validateCriteria({ sla_due_within: bad })).sla_due_within,
        bad === -5 || bad === "-1"
          ? ["Ensure this value is greater than or equal to 1."]
          : ["A valid integer is required."],
        JSON.stringify(bad)
      )
  })

  it("refuses unknown criteria (a typo would silently match everything)", () => {
    const errors = errorsOf(validateCriteria({ status: ["active"] }))
    assert.deepStrictEqual(Object.keys(errors), ["status"])
    assert.include(errors.status![0]!, "Unknown criterion")
  })

  it("refuses criteria that are not an object; a JSON string holding one (form bodies) is read", () => {
    for (const bad of [null, [], 3, true])
      assert.property(errorsOf(validateCriteria(bad)), "non_field_errors", JSON.stringify(bad))
    assert.property(errorsOf(validateCriteria("{not json")), "non_field_errors")
    assert.property(errorsOf(validateCriteria('["active"]')), "non_field_errors")
    assert.deepStrictEqual(criteriaOf(validateCriteria('{"statuses":["closed"]}')).statuses, ["closed"])
  })

  const allowed = {
    statuses: ["created", "active", "closed"],
    waiting_on: ["", "customer", "associate"],
    classifications: ["", "no_response", "customer_inactivity", "resolved", "invalid", "other"],
    priorities: ["not_set", "low", "medium", "high", "urgent"],
    channels: [...CHANNELS]
  } as const

  it.prop(
    "any subsets of the allowed values are accepted and decode as the domain's PresetFilterCriteria",
    [
      FastCheck.record({
        statuses: FastCheck.subarray([...allowed.statuses]),
        waiting_on: FastCheck.subarray([...allowed.waiting_on]),
        classifications: FastCheck.subarray([...allowed.classifications]),
        priorities: FastCheck.subarray([...allowed.priorities]),
        channels: FastCheck.subarray([...allowed.channels]),
        assignee_ids: FastCheck.uniqueArray(FastCheck.integer({ min: 1, max: 2 ** 31 }), { maxLength: 10 }),
        is_snoozed: FastCheck.constantFrom(true, false, null),
        sla_breached: FastCheck.constantFrom(true, false, null),
        sla_due_within: FastCheck.oneof(
          FastCheck.constant(null),
          FastCheck.integer({ min: MIN_SLA_DUE_WITHIN, max: MAX_SLA_DUE_WITHIN })
        )
      })
    ],
    ([input]) => {
      const criteria = criteriaOf(validateCriteria(input))
      assert.deepStrictEqual(criteria, { ...EMPTY_CRITERIA, ...input })
      assert.deepStrictEqual(Schema.decodeUnknownSync(PresetFilterCriteria)(criteria), criteria)
    }
  )

  it.prop(
    "any string outside the allowed statuses is refused under `statuses`",
    [FastCheck.string().filter((s) => !(allowed.statuses as ReadonlyArray<string>).includes(s))],
    ([value]) => {
      assert.property(errorsOf(validateCriteria({ statuses: ["active", value] })), "statuses")
    }
  )
})

describe("preset filter permissions", () => {
  const alice = { _tag: "Person", userId: 1 } as const
  const bob = { _tag: "Person", userId: 2 } as const
  const token = { _tag: "Integration" } as const

  it("people default to personal filters, tokens to organization-shared ones", () => {
    assert.strictEqual(defaultVisibility(alice), "personal")
    assert.strictEqual(defaultVisibility(token), "organization")
  })

  it("every member may create personal filters; shared ones need owner, admin or token", () => {
    for (const role of ["owner", "admin", "member"] as const) assert.isUndefined(refuseCreate(alice, role, "personal"))
    assert.isUndefined(refuseCreate(alice, "owner", "organization"))
    assert.isUndefined(refuseCreate(alice, "admin", "organization"))
    assert.isUndefined(refuseCreate(token, "token", "organization"))
    assert.strictEqual(refuseCreate(alice, "member", "organization")?._tag, "Forbidden")
    assert.strictEqual(refuseCreate(token, "token", "personal")?._tag, "InvalidVisibility")
  })

  it("a personal filter is changed by its creator only; making it shared needs a writing role", () => {
    const mine = { visibility: "personal", createdById: 1 } as const
    assert.isUndefined(refuseChange(alice, "member", mine))
    assert.isUndefined(refuseChange(alice, "admin", mine, "organization"))
    assert.strictEqual(refuseChange(alice, "member", mine, "organization")?._tag, "Forbidden")
    assert.strictEqual(refuseChange(bob, "owner", mine)?._tag, "Forbidden")
  })

  it("a shared filter is changed by owners, admins and tokens; only its creator may make it personal", () => {
    const shared = { visibility: "organization", createdById: 1 } as const
    assert.isUndefined(refuseChange(bob, "admin", shared))
    assert.isUndefined(refuseChange(token, "token", shared))
    assert.strictEqual(refuseChange(bob, "member", shared)?._tag, "Forbidden")
    assert.strictEqual(refuseChange(alice, "member", shared)?._tag, "Forbidden")
    assert.isUndefined(refuseChange(alice, "owner", shared, "personal"))
    assert.strictEqual(refuseChange(bob, "owner", shared, "personal")?._tag, "InvalidVisibility")
    assert.strictEqual(refuseChange(token, "token", shared, "personal")?._tag, "InvalidVisibility")
    const byToken = { visibility: "organization", createdById: null } as const
    assert.strictEqual(refuseChange(alice, "owner", byToken, "personal")?._tag, "InvalidVisibility")
  })
})
