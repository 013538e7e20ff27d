import { NodeContext } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { CliDatabase, runCli } from "../src/Cli/Commands.js"
import { Output } from "../src/Cli/Output.js"
import type * as PgPool from "../src/Database/PgPool.js"
import { createDemo } from "../src/Demo/Demo.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import { uniqueEmail } from "./support/Fixtures.js"
import { get, TestAppLive } from "./support/TestApp.js"

layer(TestAppLive, { excludeTestServices: true, timeout: "120 seconds" })("helpdesk demo", (it) => {
  it.effect("creates an organization to explore, reachable with the token it prints", () =>
    Effect.gen(function* () {
      const demo = yield* createDemo({ ownerEmail: uniqueEmail("demo") }).pipe(Effect.provide(TicketServicesLive))
      const token = demo.token.token
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

      // Tickets to look at, with their conversations, written as the API writes them.
      const tickets = yield* get(`${org}tickets/`, { token })
      expect(tickets.body.count).toBe(3)
      expect([...tickets.body.results.map((t: { id: number }) => t.id)].sort()).toEqual([...demo.tickets].sort())
      const first = demo.tickets[0]!
      const ticket = yield* get(`${org}tickets/${first}/`, { token })
      expect(ticket.body.subject).toBe("Cannot log in since the update")
      expect(ticket.body.customer.email).toBe("ada@example.com")
      const messages = yield* get(`${org}tickets/${first}/messages/`, { token })
      expect(messages.status).toBe(200)
      expect(messages.body.count).toBeGreaterThanOrEqual(2)
      expect(JSON.stringify(messages.body)).toContain("Could you try resetting your password")
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
        ),
        // The hints name where the service is configured to answer, not a fixed port.
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["PORT", "4567"]])))
      )
      expect(printed).toHaveLength(1)
      // biome-ignore lint/suspicious/noExplicitAny: the printed JSON is read field by field
      const out = printed[0] as any
      // The token as `org create` prints it.
      expect(Object.keys(out.token).sort()).toEqual(["id", "kind", "token"])
      expect(out.token.kind).toBe("personal")
      expect(out.token.token).toMatch(/^hd_pat_/)
      expect(out.try).toContain(`http://127.0.0.1:4567/organizations/${out.organization.public_id}/`)
      expect(out.try).not.toContain(":3000")
      const token = out.token.token
      const inboxes = yield* get(`/organizations/${out.organization.public_id}/inboxes/`, { token })
      expect(inboxes.status).toBe(200)
      expect(inboxes.body.count).toBe(2)
      const tickets = yield* get(`/organizations/${out.organization.public_id}/tickets/`, { token })
      expect(tickets.body.count).toBe(3)

      const configured = yield* runCli(["node", "helpdesk", "demo", "--owner-email", uniqueEmail("cli-demo")]).pipe(
        Effect.provide(
          Layer.mergeAll(NodeContext.layer, output, Layer.succeed(CliDatabase, Layer.succeedContext(database)))
        ),
        Effect.withConfigProvider(
          ConfigProvider.fromMap(new Map([["PUBLIC_BASE_URL", "https://help.example.com/desk"]]))
        ),
        Effect.map(() => printed[1] as { try: string })
      )
      expect(configured.try).toContain("https://help.example.com/desk/organizations/")
    })
  )
})
