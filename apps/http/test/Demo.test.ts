import { NodeContext } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { CliDatabase, runCli } from "../src/Cli/Commands.js"
import { Output } from "../src/Cli/Output.js"
import type * as PgPool from "../src/Database/PgPool.js"
import { createDemo } from "../src/Demo/Demo.js"
import { uniqueEmail } from "./support/Fixtures.js"
import { get, TestAppLive } from "./support/TestApp.js"

layer(TestAppLive, { excludeTestServices: true, timeout: "120 seconds" })("helpdesk demo", (it) => {
  it.effect("creates an organization to explore, reachable with the token it prints", () =>
    Effect.gen(function* () {
      const demo = yield* createDemo({ ownerEmail: uniqueEmail("demo") })
      const token = demo.token
      const org = `/organizations/${demo.organization.public_id}/`

      const organizations = yield* get("/organizations/", { token })
      expect(organizations.body.results.map((o: { public_id: string }) => o.public_id)).toEqual([
        demo.organization.public_id
      ])

      const inboxes = yield* get(`${org}inboxes/`, { token })
      expect(inboxes.body.count).toBe(2)
      expect(inboxes.body.results.filter((i: { is_default: boolean }) => i.is_default)).toHaveLength(1)

      const customers = yield* get(`${org}customers/`, { token })
      expect(customers.body.count).toBe(3)

      const hours = yield* get(`${org}business-hours/`, { token })
      expect(hours.body.timezone).toBe("Europe/Berlin")
      expect(hours.body.weekly_hours.mon).toEqual({ opens_at: "09:00", closes_at: "17:30" })
      expect(typeof hours.body.next_open === "string" || hours.body.is_open_now).toBe(true)
      const exceptions = yield* get(`${org}business-hours/exceptions/`, { token })
      expect(exceptions.body.count).toBe(2)

      const filters = yield* get(`${org}custom-preset-filters/`, { token })
      expect(filters.body.results.map((f: { name: string }) => f.name).sort()).toEqual([
        "Urgent, mine",
        "Waiting on us"
      ])

      const tree = yield* get(`${org}portal/collections/tree/?include_articles=true`, { token })
      expect(tree.status).toBe(200)
      expect(tree.body).toHaveLength(1)
      expect(tree.body[0].name).toBe("Getting started")
      expect(tree.body[0].articles).toHaveLength(2)
      expect(tree.body[0].children[0].name).toBe("Your account")
      expect(tree.body[0].children[0].articles).toHaveLength(2)

      const tags = yield* get(`${org}tags/`, { token })
      expect(tags.body.count).toBe(3)
    })
  )

  it.effect("`helpdesk demo` prints the organization and a token that works over HTTP", () =>
    Effect.gen(function* () {
      const database = yield* Effect.context<SqlClient.SqlClient | PgPool.PgPool>()
      const printed: Array<Record<string, unknown>> = []
      const output = Layer.succeed(Output, { result: (value) => Effect.sync(() => void printed.push(value)) })
      yield* runCli(["node", "helpdesk", "demo", "--owner-email", uniqueEmail("cli-demo")]).pipe(
        Effect.provide(
          Layer.mergeAll(NodeContext.layer, output, Layer.succeed(CliDatabase, Layer.succeedContext(database)))
        )
      )
      expect(printed).toHaveLength(1)
      // biome-ignore lint/suspicious/noExplicitAny: the printed JSON is read field by field
      const out = printed[0] as any
      expect(out.token).toMatch(/^hd_pat_/)
      expect(out.try).toContain(out.organization.public_id)
      const inboxes = yield* get(`/organizations/${out.organization.public_id}/inboxes/`, { token: out.token })
      expect(inboxes.status).toBe(200)
      expect(inboxes.body.count).toBe(2)
    })
  )
})
