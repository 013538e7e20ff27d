import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Role } from "../src/Auth/CurrentCaller.js"
import { ACTIONS, type Action, allows, deniedDetail, PERMISSIONS } from "../src/Auth/Permissions.js"
import { FILTER_WRITES } from "../src/PresetFilters/Permissions.js"
import * as Fixtures from "./support/Fixtures.js"
import { get, post, put, request, TestApp, TestAppLive } from "./support/TestApp.js"

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "hd-roles-"))

const ROLES: ReadonlyArray<Role> = ["owner", "admin", "member", "token"]

/**
 * What each served operation under `/organizations/{organization_id}/` asks of the roles table. Every such
 * operation must be listed: a new endpoint fails this test until it is classified here.
 */
const OPERATIONS: Record<string, Action | ReadonlyArray<Action>> = {
  "GET /organizations/{organization_id}/": "organization.read",
  "PATCH /organizations/{organization_id}/": "organization.settings",
  "GET /organizations/{organization_id}/tickets/": "tickets.read",
  "POST /organizations/{organization_id}/tickets/": "tickets.write",
  "GET /organizations/{organization_id}/tickets/{ticket_id}/": "tickets.read",
  "PATCH /organizations/{organization_id}/tickets/{ticket_id}/": "tickets.write",
  "GET /organizations/{organization_id}/tickets/{ticket_id}/messages/": "tickets.read",
  "POST /organizations/{organization_id}/tickets/{ticket_id}/messages/": "tickets.write",
  "GET /organizations/{organization_id}/tickets/{ticket_id}/messages/{message_id}/": "tickets.read",
  "POST /organizations/{organization_id}/tickets/{ticket_id}/snooze/": "tickets.write",
  "POST /organizations/{organization_id}/tickets/{ticket_id}/unsnooze/": "tickets.write",
  "POST /organizations/{organization_id}/tickets/{ticket_id}/resend-email/": "tickets.write",
  "POST /organizations/{organization_id}/tickets/{ticket_id}/merge/": "tickets.write",
  "POST /organizations/{organization_id}/tickets/{ticket_id}/enrichment/": "tickets.enrich",
  "GET /organizations/{organization_id}/tickets/{ticket_id}/events/": "events.read",
  "GET /organizations/{organization_id}/events/": "events.read",
  "POST /organizations/{organization_id}/pending-attachments/": "attachments.upload",
  "POST /organizations/{organization_id}/tickets/{ticket_id}/attachments/": "attachments.upload",
  "GET /organizations/{organization_id}/pending-attachments/{attachment_id}/": "tickets.read",
  "GET /organizations/{organization_id}/tickets/{ticket_id}/attachments/{attachment_id}/": "tickets.read",
  "GET /organizations/{organization_id}/customers/": "customers.read",
  "POST /organizations/{organization_id}/customers/": "customers.write",
  "GET /organizations/{organization_id}/customers/{pk}/": "customers.read",
  "PATCH /organizations/{organization_id}/customers/{pk}/": "customers.write",
  "GET /organizations/{organization_id}/companies/": "companies.read",
  "POST /organizations/{organization_id}/companies/": "companies.write",
  "GET /organizations/{organization_id}/companies/{company_id}/": "companies.read",
  "PATCH /organizations/{organization_id}/companies/{company_id}/": "companies.write",
  "GET /organizations/{organization_id}/companies/{company_id}/suggested-members/": "companies.read",
  "GET /organizations/{organization_id}/inboxes/": "inboxes.read",
  "POST /organizations/{organization_id}/inboxes/": "inboxes.write",
  "GET /organizations/{organization_id}/inboxes/{pk}/": "inboxes.read",
  "PATCH /organizations/{organization_id}/inboxes/{pk}/": "inboxes.write",
  "GET /organizations/{organization_id}/tags/": "tags.read",
  "POST /organizations/{organization_id}/tags/": "tags.write",
  "GET /organizations/{organization_id}/tags/{pk}/": "tags.read",
  "PATCH /organizations/{organization_id}/tags/{pk}/": "tags.write",
  "DELETE /organizations/{organization_id}/tags/{pk}/": "tags.write",
  "GET /organizations/{organization_id}/sla-policies/": "sla_policies.read",
  "POST /organizations/{organization_id}/sla-policies/": "sla_policies.write",
  "GET /organizations/{organization_id}/sla-policies/{pk}/": "sla_policies.read",
  "PATCH /organizations/{organization_id}/sla-policies/{pk}/": "sla_policies.write",
  "DELETE /organizations/{organization_id}/sla-policies/{pk}/": "sla_policies.write",
  "GET /organizations/{organization_id}/business-hours/": "business_hours.read",
  "PUT /organizations/{organization_id}/business-hours/": "business_hours.write",
  "GET /organizations/{organization_id}/business-hours/exceptions/": "business_hours.read",
  "POST /organizations/{organization_id}/business-hours/exceptions/": "business_hours.write",
  "GET /organizations/{organization_id}/business-hours/exceptions/{pk}/": "business_hours.read",
  "PATCH /organizations/{organization_id}/business-hours/exceptions/{pk}/": "business_hours.write",
  "DELETE /organizations/{organization_id}/business-hours/exceptions/{pk}/": "business_hours.write",
  "GET /organizations/{organization_id}/portal/": "help_center.read",
  "GET /organizations/{organization_id}/portal/collections/": "help_center.read",
  "POST /organizations/{organization_id}/portal/collections/": "help_center.write",
  "GET /organizations/{organization_id}/portal/collections/tree/": "help_center.read",
  "GET /organizations/{organization_id}/portal/collections/{collection_id}/": "help_center.read",
  "PATCH /organizations/{organization_id}/portal/collections/{collection_id}/": "help_center.write",
  "DELETE /organizations/{organization_id}/portal/collections/{collection_id}/": "help_center.write",
  "GET /organizations/{organization_id}/portal/articles/": "help_center.read",
  "POST /organizations/{organization_id}/portal/articles/": "help_center.write",
  "GET /organizations/{organization_id}/portal/articles/{article_id}/": "help_center.read",
  "PATCH /organizations/{organization_id}/portal/articles/{article_id}/": "help_center.write",
  "DELETE /organizations/{organization_id}/portal/articles/{article_id}/": "help_center.write",
  "GET /organizations/{organization_id}/custom-preset-filters/": "preset_filters.read",
  // An empty body creates a personal filter for people and a shared one for tokens: either row may allow it.
  "POST /organizations/{organization_id}/custom-preset-filters/": FILTER_WRITES,
  "GET /organizations/{organization_id}/custom-preset-filters/{filter_id}/": "preset_filters.read",
  // The fixture filter is organization-shared.
  "PATCH /organizations/{organization_id}/custom-preset-filters/{filter_id}/": "preset_filters.write_shared",
  "DELETE /organizations/{organization_id}/custom-preset-filters/{filter_id}/": "preset_filters.write_shared",
  "GET /organizations/{organization_id}/members/": "members.read",
  "POST /organizations/{organization_id}/members/": "members.write",
  "GET /organizations/{organization_id}/members/{user_id}/": "members.read",
  "PATCH /organizations/{organization_id}/members/{user_id}/": "members.write",
  "DELETE /organizations/{organization_id}/members/{user_id}/": "members.write",
  "GET /organizations/{organization_id}/personal-tokens/": "personal_tokens.manage",
  "POST /organizations/{organization_id}/personal-tokens/": "personal_tokens.manage",
  "GET /organizations/{organization_id}/personal-tokens/{token_id}/": "personal_tokens.manage",
  "DELETE /organizations/{organization_id}/personal-tokens/{token_id}/": "personal_tokens.manage",
  "GET /organizations/{organization_id}/webhooks/": "webhooks.manage",
  "POST /organizations/{organization_id}/webhooks/": "webhooks.manage",
  "GET /organizations/{organization_id}/webhooks/{webhook_id}/": "webhooks.manage",
  "PATCH /organizations/{organization_id}/webhooks/{webhook_id}/": "webhooks.manage",
  "DELETE /organizations/{organization_id}/webhooks/{webhook_id}/": "webhooks.manage",
  "POST /organizations/{organization_id}/webhooks/{webhook_id}/rotate-secret/": "webhooks.manage",
  "GET /organizations/{organization_id}/webhooks/{webhook_id}/deliveries/": "webhooks.manage"
}

const expectAllowed = (needs: Action | ReadonlyArray<Action>, role: Role) =>
  (typeof needs === "string" ? [needs] : needs).some((action) => allows(action, role))

/** The body of a refusal: the row's own detail, else the generic one. */
const refusal = (needs: Action | ReadonlyArray<Action>) =>
  JSON.stringify({
    detail:
      (typeof needs === "string" ? deniedDetail(needs) : undefined) ??
      "You do not have permission to perform this action."
  })

/** The roles table as docs/api-conventions.md shows it. */
const renderTable = () =>
  [
    "| Action | Endpoints (under `/organizations/{organization_id}/`) | owner | admin | member | token |",
    "|---|---|---|---|---|---|",
    ...ACTIONS.map(
      (action) =>
        `| \`${action}\` | ${PERMISSIONS[action].endpoints} | ${ROLES.map((role) => (allows(action, role) ? "✓" : "—")).join(" | ")} |`
    )
  ].join("\n")

describe("the roles table", () => {
  it("docs/api-conventions.md shows exactly the table of Auth/Permissions.ts", () => {
    const docs = fs.readFileSync(new URL("../../../docs/api-conventions.md", import.meta.url), "utf8")
    assert.include(docs, renderTable(), `paste this table into docs/api-conventions.md:\n\n${renderTable()}\n`)
  })

  it("members read everything and work tickets and customers; configuration and people are for owners and admins", () => {
    for (const action of ACTIONS) {
      if (action.endsWith(".read")) assert.isTrue(allows(action, "member"), action)
    }
    assert.deepStrictEqual(
      ACTIONS.filter((action) => !action.endsWith(".read") && allows(action, "member")),
      [
        "tickets.write",
        "attachments.upload",
        "customers.write",
        "companies.write",
        "preset_filters.write_personal",
        "personal_tokens.manage"
      ]
    )
    for (const action of [
      "organization.settings",
      "inboxes.write",
      "tags.write",
      "business_hours.write",
      "help_center.write",
      "preset_filters.write_shared",
      "members.write",
      "members.owners"
    ] as const) {
      assert.isFalse(allows(action, "member"), action)
      assert.isTrue(allows(action, "owner") && (action === "members.owners" || allows(action, "admin")), action)
    }
    for (const role of ROLES) assert.strictEqual(allows("attachments.upload", role), allows("tickets.write", role))
    // Integration tokens keep what they had, and have no people's rights.
    for (const action of ["members.write", "members.owners", "personal_tokens.manage"] as const)
      assert.isFalse(allows(action, "token"), action)
  })
})

/** Ids of one set of resources, to fill an operation's path parameters. */
type Ids = Record<string, string>

const created = (response: { readonly status: number; readonly text: string; readonly body: { id?: unknown } }) => {
  assert.strictEqual(response.status, 201, response.text)
  return String(response.body.id)
}

let sets = 0

/**
 * One of everything an operation's path can name, created by the owner (a fresh set per caller); the personal
 * token is the caller's own (another person's is 404 to them), a spare one so revoking it keeps the caller's.
 */
const resources = (org: Fixtures.OrgFixture, caller: string = org.ownerToken) =>
  Effect.gen(function* () {
    const set = ++sets
    const token = org.ownerToken
    const make = (what: string, json: Record<string, unknown>) =>
      Effect.map(post(`${org.path}${what}`, { token, json }), created)
    const collection = yield* make("portal/collections/", { name: `Guides ${set}` })
    const ticketId = yield* make("tickets/", {
      subject: "Parcel missing",
      description: "Where is my parcel?",
      customer_email: Fixtures.uniqueEmail("customer")
    })
    const uploaded = yield* send("POST", `${org.path}tickets/${ticketId}/attachments/`, token, true)
    return {
      ticket_id: ticketId,
      message_id: yield* make(`tickets/${ticketId}/messages/`, { content: "Note", is_visible_to_customer: false }),
      attachment_id: String(JSON.parse(uploaded.text).id),
      customers: yield* make("customers/", { email: Fixtures.uniqueEmail("customer") }),
      company_id: yield* make("companies/", { name: `Acme ${set}` }),
      inboxes: yield* make("inboxes/", { name: `Desk ${set}`, email_prefix: `desk${set}` }),
      tags: yield* make("tags/", { name: `tag-${set}` }),
      "sla-policies": yield* make("sla-policies/", { name: `SLA ${set}` }),
      exceptions: yield* make("business-hours/exceptions/", { date: `2026-12-${10 + set}` }),
      collection_id: collection,
      article_id: yield* make("portal/articles/", {
        collection: Number(collection),
        title: `Reset ${set}`,
        body: "Step 1"
      }),
      filter_id: yield* make("custom-preset-filters/", { name: `Shared ${set}`, visibility: "organization" }),
      user_id: yield* make("members/", { email: Fixtures.uniqueEmail("agent"), role: "member" }),
      token_id: yield* Effect.map(
        post(`${org.path}personal-tokens/`, { token: caller, json: { name: `spare ${set}` } }),
        (response) => (response.status === 201 ? String(response.body.id) : "1")
      ),
      webhook_id: yield* make("webhooks/", { url: `https://hooks.example.com/roles-${set}` })
    } satisfies Ids
  })

/** The path with its parameters filled; `{pk}` is named by the segment before it. */
const fill = (template: string, publicId: string, ids: Ids) =>
  template.replace(/\{(\w+)\}/g, (_, name: string, offset: number) => {
    if (name === "organization_id") return publicId
    const key =
      name === "pk"
        ? template
            .slice(0, offset - 1)
            .split("/")
            .pop()!
        : name
    const id = ids[key]
    if (id === undefined) throw new Error(`no fixture for {${name}} in ${template}`)
    return id
  })

/** Sends the operation as the caller: a small file to upload endpoints, an empty JSON object to other writes. */
const send = (method: string, url: string, token: string, upload: boolean) =>
  Effect.gen(function* () {
    if (!upload)
      return yield* request(method, url, method === "GET" || method === "DELETE" ? { token } : { token, json: {} })
    const { baseUrl } = yield* TestApp
    const form = new FormData()
    form.append("file_upload", new Blob(["hello"], { type: "text/plain" }), "hello.txt")
    const response = yield* Effect.promise(() =>
      fetch(new URL(url, baseUrl), { method, headers: { "x-service-token": token }, body: form })
    )
    return { status: response.status, text: yield* Effect.promise(() => response.text()) }
  })

layer(TestAppLive, { excludeTestServices: true, timeout: "300 seconds" })("roles matrix", (it) => {
  it.effect("every operation under /organizations/{organization_id}/ answers each role as the roles table says", () =>
    Effect.gen(function* () {
      const spec = (yield* get("/openapi.json")).body as { paths: Record<string, Record<string, unknown>> }
      const served = Object.entries(spec.paths)
        .filter(([template]) => template.startsWith("/organizations/{organization_id}/"))
        .flatMap(([template, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${template}`))
        // Deletes last, so what a caller deletes is not missing from their other operations.
        .sort((a, b) => Number(a.startsWith("DELETE")) - Number(b.startsWith("DELETE")))
      assert.deepStrictEqual([...served].sort(), Object.keys(OPERATIONS).sort(), "classify every served operation")

      const org = yield* Fixtures.organization()
      const hours = { mon: { opens_at: "09:00", closes_at: "17:00" } }
      const saved = yield* put(`${org.path}business-hours/`, {
        token: org.ownerToken,
        json: { timezone: "Europe/Berlin", weekly_hours: hours }
      })
      assert.strictEqual(saved.status, 200, saved.text)
      const callers: Record<Role, string> = {
        owner: org.ownerToken,
        admin: (yield* Fixtures.member(org, "admin")).token,
        member: (yield* Fixtures.member(org, "member")).token,
        token: yield* Fixtures.integrationToken(org)
      }
      const other = yield* Fixtures.organization()
      const strangers = {
        "person of another organization": other.ownerToken,
        "token of another organization": yield* Fixtures.integrationToken(other)
      }

      const mismatches: Array<string> = []
      for (const role of ROLES) {
        const ids = yield* resources(org, callers[role])
        for (const operation of served) {
          const [method, template] = operation.split(" ") as [string, string]
          const needs = OPERATIONS[operation]!
          const upload = needs === "attachments.upload"
          const response = yield* send(method, fill(template, org.organization.public_id, ids), callers[role], upload)
          const allowed = expectAllowed(needs, role)
          const ok = allowed
            ? response.status < 500 && ![401, 403, 404].includes(response.status)
            : response.status === 403 && response.text === refusal(needs)
          if (!ok)
            mismatches.push(
              `${role} ${operation}: ${response.status} (${allowed ? "allowed" : "403 expected"}) ${response.text.slice(0, 120)}`
            )
        }
      }
      const ids = yield* resources(org)
      for (const [who, token] of Object.entries(strangers)) {
        for (const operation of served) {
          const [method, template] = operation.split(" ") as [string, string]
          const upload = OPERATIONS[operation] === "attachments.upload"
          const response = yield* send(method, fill(template, org.organization.public_id, ids), token, upload)
          if (response.status !== 404) mismatches.push(`${who} ${operation}: ${response.status} (404 expected)`)
        }
      }
      assert.deepStrictEqual(mismatches, [])
    })
  )
})
