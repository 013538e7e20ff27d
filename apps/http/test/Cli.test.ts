import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { NodeContext } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Layer, Schedule } from "effect"
import { CliDatabase, CliError, CliUnmigratedDatabase, runCli } from "../src/Cli/Commands.js"
import { Output } from "../src/Cli/Output.js"
import { runHelpdesk } from "../src/Cli/Run.js"
import { type Colors, colorsOn } from "../src/Cli/Terminal.js"
import { migrations } from "../src/Database/migrations/index.js"
import type * as PgPool from "../src/Database/PgPool.js"
import { get, patch, testAppLive } from "./support/TestApp.js"
import { usesRealPostgres } from "./support/TestDatabase.js"
import { organizationWithTicket, readTicket, snoozeTicket, type TicketOrg } from "./TicketsSupport.js"

/** Runs `helpdesk <args>` in-process against the test database; returns what it printed as JSON. */
const helpdesk = (...args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const database = yield* Effect.context<SqlClient.SqlClient | PgPool.PgPool>()
    const printed: Array<Record<string, unknown>> = []
    const output = Layer.succeed(Output, {
      result: (value) => Effect.sync(() => void printed.push(value))
    })
    const result = yield* runCli(["node", "helpdesk", ...args]).pipe(
      Effect.provide(
        Layer.mergeAll(
          NodeContext.layer,
          output,
          Layer.succeed(CliDatabase, Layer.succeedContext(database)),
          Layer.succeed(CliUnmigratedDatabase, Layer.succeedContext(database))
        )
      ),
      Effect.either
    )
    return { printed, result }
  })

const PIPED: Colors = { stdout: false, stderr: false }

/**
 * Runs `helpdesk <args>` as the bin does (exit code, one-line errors), with `colors` as a pipe or a terminal
 * would give; returns the exit code and the text written to stdout and stderr (results are JSON lines there).
 */
const helpdeskProcess = (args: ReadonlyArray<string>, colors: Colors = PIPED) =>
  Effect.gen(function* () {
    const database = yield* Effect.context<SqlClient.SqlClient | PgPool.PgPool>()
    const console = yield* Effect.console
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const text = (parts: ReadonlyArray<unknown>) => `${parts.map(String).join(" ")}\n`
    const output = Layer.succeed(Output, {
      result: (value) => Effect.sync(() => void stdout.push(`${JSON.stringify(value)}\n`))
    })
    const code = yield* runHelpdesk(["node", "helpdesk", ...args], colors).pipe(
      Effect.withConsole({
        ...console,
        log: (...parts) => Effect.sync(() => void stdout.push(text(parts))),
        error: (...parts) => Effect.sync(() => void stderr.push(text(parts)))
      }),
      Effect.provide(
        Layer.mergeAll(NodeContext.layer, output, Layer.succeed(CliDatabase, Layer.succeedContext(database)))
      )
    )
    return { code, stdout: stdout.join(""), stderr: stderr.join("") }
  })

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

// biome-ignore lint/suspicious/noExplicitAny: the printed JSON is read field by field
const only = (printed: ReadonlyArray<Record<string, unknown>>): any => {
  assert.strictEqual(printed.length, 1)
  return printed[0]
}

/** Creates an organization with `helpdesk org create`; answers what it printed and the public id. */
const createdOrganization = (name: string, ownerEmail: string) =>
  Effect.map(helpdesk("org", "create", "--name", name, "--owner-email", ownerEmail), (run) => {
    const created = only(run.printed)
    return { created, org: created.organization.public_id as string }
  })

const failureMessage = (result: { _tag: string; left?: unknown }) => {
  assert.strictEqual(result._tag, "Left")
  assert.instanceOf(result.left, CliError)
  return (result.left as CliError).message
}

/** The ticket once `done` holds for it (read every 200 ms, for at most 20 s). */
// biome-ignore lint/suspicious/noExplicitAny: the ticket JSON is read field by field
const eventually = (org: TicketOrg, id: number, done: (ticket: any) => boolean) =>
  readTicket(org, id).pipe(
    Effect.map((response) => response.body),
    Effect.filterOrFail(done),
    Effect.retry({ schedule: Schedule.spaced("200 millis") }),
    Effect.timeout("20 seconds")
  )

/**
 * The answer to `request` once it has `status`, polled for at most 1 s: the command line is another process, whose
 * changes reach the server's cache of callers within a second (decision 0658).
 */
const withinASecond = <A extends { readonly status: number }, E, R>(request: Effect.Effect<A, E, R>, status: number) =>
  request.pipe(
    Effect.filterOrFail((response) => response.status === status),
    Effect.retry({ schedule: Schedule.spaced("50 millis") }),
    Effect.timeout("1 second"),
    Effect.catchAll(() => request)
  )

// On PGlite the CLI shares the test's pool, and `worker` runs every background worker at once over it: one
// connection, as the service itself has (pglite-socket can mix up the exchanges of concurrent connections).
const CliTestAppLive = testAppLive({}, { connections: usesRealPostgres ? undefined : 1 })

layer(CliTestAppLive, { excludeTestServices: true })("helpdesk CLI", (it) => {
  it.effect("org create prints the organization, its owner and a personal token that works over HTTP", () =>
    Effect.gen(function* () {
      const { printed, result } = yield* helpdesk(
        "org",
        "create",
        "--name",
        "Acme",
        "--owner-email",
        "Boss@Example.com"
      )
      assert.strictEqual(result._tag, "Right")
      const out = only(printed)
      assert.strictEqual(out.organization.name, "Acme")
      assert.match(out.organization.public_id, /^acme-[a-z0-9]{8}$/)
      assert.strictEqual(out.owner.email, "boss@example.com")
      assert.match(out.token.token, /^hd_pat_[A-Za-z0-9_-]{43}$/)
      const response = yield* get(`/organizations/${out.organization.public_id}/`, { token: out.token.token })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.body.created_by.email, "boss@example.com")
    })
  )

  it.effect("org create refuses a bad e-mail and a blank name", () =>
    Effect.gen(function* () {
      const badEmail = yield* helpdesk("org", "create", "--name", "Acme", "--owner-email", "nope")
      assert.include(failureMessage(badEmail.result), "not a valid e-mail address")
      const blank = yield* helpdesk("org", "create", "--name", " ", "--owner-email", "a@example.com")
      assert.include(failureMessage(blank.result), "1 to 255 characters")
      assert.deepStrictEqual([...badEmail.printed, ...blank.printed], [])
    })
  )

  it.effect("user add + token create --user: the member reads but cannot write", () =>
    Effect.gen(function* () {
      const { org } = yield* createdOrganization("Beta", "o@beta.example")
      const added = yield* helpdesk("user", "add", "--org", org, "--email", "m@beta.example", "--role", "member")
      assert.deepInclude(only(added.printed), { organization: org, role: "member" })
      const issued = only((yield* helpdesk("token", "create", "--org", org, "--user", "m@beta.example")).printed)
      assert.strictEqual(issued.kind, "personal")
      const path = `/organizations/${org}/`
      assert.strictEqual((yield* get(path, { token: issued.token })).status, 200)
      assert.strictEqual((yield* patch(path, { token: issued.token, json: { name: "x" } })).status, 403)
      // Promoted to admin, the same token writes.
      yield* helpdesk("user", "add", "--org", org, "--email", "m@beta.example", "--role", "admin")
      assert.strictEqual(
        (yield* withinASecond(patch(path, { token: issued.token, json: { name: "Beta 2" } }), 200)).status,
        200
      )
    })
  )

  it.effect("user add never demotes the last owner; with a second owner it does", () =>
    Effect.gen(function* () {
      const { org } = yield* createdOrganization("Delta", "o@delta.example")
      const demote = yield* helpdesk("user", "add", "--org", org, "--email", "o@delta.example", "--role", "admin")
      assert.include(failureMessage(demote.result), "last owner")
      assert.deepStrictEqual(demote.printed, [])
      yield* helpdesk("user", "add", "--org", org, "--email", "p@delta.example", "--role", "owner")
      const again = yield* helpdesk("user", "add", "--org", org, "--email", "o@delta.example", "--role", "admin")
      assert.deepInclude(only(again.printed), { organization: org, role: "admin" })
    })
  )

  it.effect("token create refuses non-members, unknown organizations and ambiguous kinds", () =>
    Effect.gen(function* () {
      const { org } = yield* createdOrganization("Gamma", "o@g.example")
      assert.include(
        failureMessage((yield* helpdesk("token", "create", "--org", org, "--user", "stranger@g.example")).result),
        "is not a member"
      )
      assert.include(
        failureMessage((yield* helpdesk("token", "create", "--org", "no-such-org", "--integration")).result),
        'No organization has the id "no-such-org"'
      )
      assert.include(
        failureMessage((yield* helpdesk("token", "create", "--org", org)).result),
        "exactly one of --integration or --user"
      )
      assert.include(
        failureMessage((yield* helpdesk("user", "add", "--org", "no-such-org", "--email", "x@g.example")).result),
        "No organization"
      )
    })
  )

  it.effect("an integration token sees its organization; revoked by value or by id it is refused", () =>
    Effect.gen(function* () {
      const { created, org } = yield* createdOrganization("Delta", "o@d.example")
      const first = only((yield* helpdesk("token", "create", "--org", org, "--integration")).printed)
      const second = only(
        (yield* helpdesk("token", "create", "--org", org, "--integration", "--name", "zapier")).printed
      )
      assert.match(first.token, /^hd_int_/)
      const list = yield* get("/organizations/", { token: first.token })
      assert.deepStrictEqual(
        list.body.results.map((o: { public_id: string }) => o.public_id),
        [org]
      )
      const byValue = only((yield* helpdesk("token", "revoke", first.token)).printed)
      assert.strictEqual(byValue.id, first.id)
      assert.isString(byValue.revoked_at)
      const byId = only((yield* helpdesk("token", "revoke", String(second.id))).printed)
      assert.strictEqual(byId.id, second.id)
      for (const token of [first.token, second.token]) {
        const refused = yield* withinASecond(get("/organizations/", { token }), 401)
        assert.strictEqual(refused.status, 401)
        assert.deepStrictEqual(refused.body, { detail: "Invalid token." })
      }
      // The owner's personal token is untouched.
      assert.strictEqual((yield* get("/organizations/", { token: created.token.token })).status, 200)
      assert.include(failureMessage((yield* helpdesk("token", "revoke", "999999")).result), "No token matches 999999")
    })
  )

  it.effect("worker runs the background workers alone: a due snooze ends and the create-email is written", () =>
    Effect.gen(function* () {
      const { org, t: created } = yield* organizationWithTicket()
      const until = new Date(Date.now() + 1500).toISOString()
      const snoozed = yield* snoozeTicket(org, created.id, until)
      assert.strictEqual(snoozed.status, 200, snoozed.text)
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "helpdesk-worker-"))
      // No worker runs in the test app: only the CLI's can end the snooze and send the create-email.
      const running = yield* Effect.fork(
        helpdesk("worker").pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["DATA_DIR", dataDir]]))))
      )
      const woken = yield* eventually(org, created.id, (t) => t.snoozed_until === null)
      assert.strictEqual(woken.last_unsnooze_reason, "timer")
      const sent = yield* eventually(org, created.id, (t) => t.delivery_status === "sent")
      assert.isString(sent.sent_at)
      assert.lengthOf(
        fs.readdirSync(path.join(dataDir, "outbox")).filter((f) => f.endsWith(".eml")),
        1
      )
      yield* Fiber.interrupt(running)
      fs.rmSync(dataDir, { recursive: true, force: true })
    })
  )

  it.effect("help and errors carry no ANSI colours on a pipe, nor on a terminal with NO_COLOR set", () =>
    Effect.gen(function* () {
      const piped = yield* helpdeskProcess(["--help"])
      assert.strictEqual(piped.code, 0)
      assert.include(piped.stdout, "USAGE")
      assert.include(piped.stdout, "org")
      assert.notInclude(piped.stdout, "\x1b[")
      const refused = yield* helpdeskProcess(["org", "create"])
      assert.notInclude(refused.stderr, "\x1b[")
      // On a terminal the help is coloured: the library always renders ANSI, so only this CLI takes it out.
      const terminal = yield* helpdeskProcess(["--help"], { stdout: true, stderr: true })
      assert.include(terminal.stdout, "\x1b[")
      // NO_COLOR (any non-empty value) turns colours off even on a terminal.
      assert.isTrue(colorsOn({ isTTY: true }, {}))
      assert.isFalse(colorsOn({ isTTY: true }, { NO_COLOR: "1" }))
      assert.isTrue(colorsOn({ isTTY: true }, { NO_COLOR: "" }))
      assert.isFalse(colorsOn({ isTTY: false }, {}))
      assert.isFalse(colorsOn({ isTTY: undefined }, {}))
    })
  )

  it.effect("a command line it cannot run: one line on stderr pointing at --help, exit code 2", () =>
    Effect.gen(function* () {
      const missing = yield* helpdeskProcess(["org", "create", "--owner-email", "a@example.com"])
      assert.deepStrictEqual(
        { code: missing.code, stderr: lines(missing.stderr), stdout: missing.stdout },
        { code: 2, stderr: ["Error: missing --name (see helpdesk org create --help)"], stdout: "" }
      )
      for (const args of [
        ["bogus"],
        ["org"],
        ["token", "create", "--org"],
        ["user", "add", "--org", "x", "--email", "a@example.com", "--role", "king"],
        ["org", "create", "--name", "A", "--owner-email", "a@example.com", "extra"],
        []
      ]) {
        const run = yield* helpdeskProcess(args)
        assert.strictEqual(run.code, 2, `${args.join(" ")}: ${run.stderr}`)
        assert.lengthOf(lines(run.stderr), 1, run.stderr)
        assert.match(run.stderr, /^Error: .+ \(see helpdesk[a-z ]* --help\)\n$/)
        assert.notInclude(run.stderr, "_tag")
      }
      assert.strictEqual(
        (yield* helpdeskProcess(["org"])).stderr,
        "Error: missing subcommand: create, list (see helpdesk org --help)\n"
      )
      // A refusal of what was asked (not of the command line) is exit code 1, in one line too.
      const refusal = yield* helpdeskProcess(["org", "create", "--name", "A", "--owner-email", "nope"])
      assert.deepStrictEqual(
        { code: refusal.code, stderr: lines(refusal.stderr) },
        { code: 1, stderr: ['Error: "nope" is not a valid e-mail address.'] }
      )
    })
  )

  it.effect("org list, user list and token list show what exists, never a token's secret", () =>
    Effect.gen(function* () {
      const { created, org } = yield* createdOrganization("Lister", "o@l.example")
      yield* helpdesk("user", "add", "--org", org, "--email", "m@l.example", "--role", "admin")
      const personal = only((yield* helpdesk("token", "create", "--org", org, "--user", "m@l.example")).printed)
      const integration = only(
        (yield* helpdesk("token", "create", "--org", org, "--integration", "--name", "ci")).printed
      )
      yield* helpdesk("token", "revoke", String(integration.id))
      const secrets = [created.token.token, personal.token, integration.token]

      const orgs = only((yield* helpdesk("org", "list")).printed).organizations
      assert.deepInclude(
        orgs.map((o: { public_id: string; name: string; members: number }) => ({
          public_id: o.public_id,
          name: o.name,
          members: o.members
        })),
        { public_id: org, name: "Lister", members: 2 }
      )

      const users = only((yield* helpdesk("user", "list", "--org", org)).printed).users
      assert.deepStrictEqual(
        users.map((u: { email: string; memberships: unknown }) => [u.email, u.memberships]),
        [
          ["m@l.example", [{ organization: org, role: "admin" }]],
          ["o@l.example", [{ organization: org, role: "owner" }]]
        ]
      )
      assert.isAtLeast(only((yield* helpdesk("user", "list")).printed).users.length, 2)

      const listed = only((yield* helpdesk("token", "list", "--org", org)).printed)
      assert.deepStrictEqual(
        listed.tokens.map((t: { id: number }) => t.id),
        [created.token.id, personal.id, integration.id]
      )
      const revoked = listed.tokens.find((t: { id: number }) => t.id === integration.id)
      assert.deepInclude(revoked, { kind: "integration", name: "ci", organization: org, user: null })
      assert.strictEqual(revoked.prefix, `${integration.token.slice(0, 11)}…`)
      assert.isString(revoked.created_at)
      assert.isString(revoked.revoked_at)
      const mine = only((yield* helpdesk("token", "list", "--user", "M@l.example")).printed)
      assert.deepStrictEqual(
        mine.tokens.map((t: { id: number; user: string; revoked_at: null }) => [t.id, t.user, t.revoked_at]),
        [[personal.id, "m@l.example", null]]
      )
      const everything = JSON.stringify([listed, mine, only((yield* helpdesk("token", "list")).printed)])
      for (const secret of secrets) assert.notInclude(everything, secret.slice(11))
      const both = yield* helpdeskProcess(["token", "list", "--org", org, "--user", "m@l.example"])
      assert.strictEqual(both.code, 2)
      assert.strictEqual(both.stderr, "Error: give at most one of --org or --user (see helpdesk token list --help)\n")
    })
  )

  it.effect("migrate --status lists the applied migrations and none pending on a migrated database", () =>
    Effect.gen(function* () {
      const status = only((yield* helpdesk("migrate", "--status")).printed)
      const names = Object.keys(migrations)
      assert.deepStrictEqual(
        status.applied.map((m: { id: number; name: string }) => `${String(m.id).padStart(4, "0")}_${m.name}`),
        names
      )
      for (const migration of status.applied) assert.isString(migration.applied_at)
      assert.deepStrictEqual(status.pending, [])
    })
  )
})

/** `helpdesk <args>` in a process of its own, from the sources through tsx, its output piped as in a script. */
const spawned = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const cli = fileURLToPath(new URL("../src/cli.ts", import.meta.url))
    const tsconfig = fileURLToPath(new URL("../tsconfig.test.json", import.meta.url))
    execFile(
      process.execPath,
      ["--import", "tsx", cli, ...args],
      // No DATABASE_URL nor DATA_DIR to touch: these command lines never reach the database.
      { env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig, DATABASE_URL: "", ...env } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr })
    )
  })

describe("the helpdesk process", () => {
  it("piped: help without ANSI escapes; a missing flag is one line on stderr and exit code 2", async () => {
    const help = await spawned(["--help"])
    assert.strictEqual(help.code, 0, help.stderr)
    assert.include(help.stdout, "USAGE")
    assert.notInclude(help.stdout + help.stderr, "\x1b[")
    const missing = await spawned(["org", "create", "--owner-email", "a@example.com"])
    assert.deepStrictEqual(missing, {
      code: 2,
      stdout: "",
      stderr: "Error: missing --name (see helpdesk org create --help)\n"
    })
    const unknown = await spawned(["tokne", "list"], { NO_COLOR: "1" })
    assert.strictEqual(unknown.code, 2)
    assert.match(unknown.stderr, /^Error: [^\n]+ \(see helpdesk --help\)\n$/)
  })
})
