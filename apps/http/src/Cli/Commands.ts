import { Args, Command, Options } from "@effect/cli"
import { SqlClient } from "@effect/sql"
import { Config, Context, Effect, Layer, Option, Schema } from "effect"
import { MEMBER_ROLES } from "../Auth/CurrentCaller.js"
import { type IssuedToken, Tokens } from "../Auth/Tokens.js"
import type * as PgPool from "../Database/PgPool.js"
import { createDemo } from "../Demo/Demo.js"
import { isEmail } from "../Http/Fields.js"
import { Organizations } from "../Organizations/Organizations.js"
import { ServerLive, ServicesLive, WorkersLive } from "../Server.js"
import { Memberships } from "../Users/Memberships.js"
import { Users } from "../Users/Users.js"
import { Output } from "./Output.js"

/**
 * The database the commands use, as a layer built only when a command needs it (so `--help` touches nothing).
 * The CLI provides `DatabaseLive`; tests provide their test database.
 */
export class CliDatabase extends Context.Tag("@helpdesk/http/Cli/CliDatabase")<
  CliDatabase,
  Layer.Layer<SqlClient.SqlClient | PgPool.PgPool, unknown>
>() {}

/** A refusal the CLI reports as a one-line error (exit code 1), not a stack trace. */
export class CliError extends Schema.TaggedError<CliError>()("CliError", { message: Schema.String }) {}

type Services = Tokens | Users | Memberships | Organizations | SqlClient.SqlClient | PgPool.PgPool

const withServices = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | unknown, Exclude<R, Services> | CliDatabase> =>
  Effect.flatMap(CliDatabase, (database) =>
    Effect.provide(
      effect as Effect.Effect<A, E, Services | Exclude<R, Services>>,
      ServicesLive.pipe(Layer.provideMerge(database))
    )
  )

const findOrganization = (publicId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly id: string }>`SELECT id FROM organizations WHERE public_id = ${publicId}`.pipe(
      Effect.orDie
    )
    if (rows[0] === undefined) return yield* new CliError({ message: `No organization has the id "${publicId}".` })
    return Number(rows[0].id)
  })

const requireEmail = (email: string) =>
  isEmail(email.trim())
    ? Effect.succeed(email.trim())
    : new CliError({ message: `"${email}" is not a valid e-mail address.` })

const serve = Command.make(
  "serve",
  {
    port: Options.integer("port").pipe(
      Options.withFallbackConfig(Config.integer("PORT")),
      Options.withDefault(3000),
      Options.withDescription("Port to listen on (env PORT, default 3000).")
    ),
    host: Options.text("host").pipe(
      Options.withFallbackConfig(Config.string("HOST")),
      Options.withDefault("127.0.0.1"),
      Options.withDescription("Address to listen on (env HOST, default 127.0.0.1).")
    ),
    withoutWorkers: Options.boolean("without-workers").pipe(
      Options.withFallbackConfig(Config.boolean("WITHOUT_WORKERS")),
      Options.withDescription(
        "Serve HTTP only, leaving mail delivery, timers and clean-up to `helpdesk worker` processes (env WITHOUT_WORKERS)."
      )
    )
  },
  ({ host, port, withoutWorkers }) =>
    Effect.gen(function* () {
      const database = yield* CliDatabase
      const hint = Effect.gen(function* () {
        const organizations = yield* Organizations
        if (yield* organizations.isEmpty)
          yield* Effect.logInfo(
            "No organizations yet: run `npx helpdesk org create --name Acme --owner-email you@example.com` to create one and get a token."
          )
      })
      yield* Layer.launch(
        Layer.merge(
          ServerLive({ host, port, workers: !withoutWorkers }),
          Layer.effectDiscard(hint).pipe(Layer.provide(ServicesLive))
        ).pipe(Layer.provide(database))
      )
    })
).pipe(Command.withDescription("Run the HTTP service (runs pending migrations first)."))

const worker = Command.make("worker", {}, () =>
  Effect.gen(function* () {
    const database = yield* CliDatabase
    yield* Effect.logInfo("Workers running: mail delivery, snooze and inactivity timers, expired-upload clean-up.")
    yield* Layer.launch(WorkersLive.pipe(Layer.provide(database)))
  })
).pipe(
  Command.withDescription(
    "Run the background workers without HTTP (mail delivery, timers, clean-up); any number of them may run beside `serve --without-workers`."
  )
)

const migrate = Command.make("migrate", {}, () =>
  Effect.gen(function* () {
    const database = yield* CliDatabase
    yield* Effect.provide(Effect.void, database)
    yield* (yield* Output).result({ migrated: true }, "Database migrated.")
  })
).pipe(Command.withDescription("Run pending database migrations."))

const orgCreate = Command.make(
  "create",
  {
    name: Options.text("name").pipe(Options.withDescription("Organization name.")),
    ownerEmail: Options.text("owner-email").pipe(Options.withDescription("E-mail of the owner (created if new).")),
    ownerName: Options.text("owner-name").pipe(Options.withDefault(""), Options.withDescription("Owner's name."))
  },
  ({ name, ownerEmail, ownerName }) =>
    withServices(
      Effect.gen(function* () {
        const email = yield* requireEmail(ownerEmail)
        const trimmed = name.trim()
        if (trimmed === "" || [...trimmed].length > 255)
          return yield* new CliError({ message: "The name must have 1 to 255 characters." })
        const owner = yield* (yield* Users).ensure(email, ownerName.trim())
        const organization = yield* (yield* Organizations).create({ name: trimmed, createdBy: owner.id })
        const token = yield* (yield* Tokens).issuePersonal(owner.id, "cli")
        yield* (yield* Output).result(
          {
            organization,
            owner: { id: owner.id, email: owner.email, name: owner.name },
            token: { id: token.id, kind: token.kind, token: token.token }
          },
          [
            `Organization "${organization.name}" created: ${organization.public_id}`,
            `Owner: ${owner.email}`,
            `Personal token (shown once): ${token.token}`,
            `Try: curl -H "X-Service-Token: ${token.token}" http://127.0.0.1:3000/organizations/`
          ].join("\n")
        )
      })
    )
).pipe(Command.withDescription("Create an organization with its owner, and print the owner's personal token."))

const userAdd = Command.make(
  "add",
  {
    org: Options.text("org").pipe(Options.withDescription("The organization's public id.")),
    email: Options.text("email"),
    role: Options.choice("role", MEMBER_ROLES).pipe(Options.withDefault("member" as const)),
    name: Options.text("name").pipe(Options.withDefault(""))
  },
  ({ email, name, org, role }) =>
    withServices(
      Effect.gen(function* () {
        const address = yield* requireEmail(email)
        const organizationId = yield* findOrganization(org)
        const user = yield* (yield* Users).ensure(address, name.trim())
        yield* (yield* Memberships).put(organizationId, user.id, role)
        yield* (yield* Output).result(
          { user: { id: user.id, email: user.email, name: user.name }, organization: org, role },
          `${user.email} is ${role} of ${org}. Create their token: helpdesk token create --org ${org} --user ${user.email}`
        )
      })
    )
).pipe(Command.withDescription("Add a user to an organization (or change their role)."))

const tokenCreate = Command.make(
  "create",
  {
    org: Options.text("org").pipe(Options.withDescription("The organization's public id.")),
    integration: Options.boolean("integration").pipe(
      Options.withDescription("An integration token of the organization (role `token`).")
    ),
    user: Options.optional(Options.text("user")).pipe(
      Options.withDescription("E-mail of a member: a personal token acting as them.")
    ),
    name: Options.text("name").pipe(Options.withDefault(""), Options.withDescription("A label for the token."))
  },
  ({ integration, name, org, user }) =>
    withServices(
      Effect.gen(function* () {
        const organizationId = yield* findOrganization(org)
        const tokens = yield* Tokens
        if (integration === Option.isSome(user))
          return yield* new CliError({ message: "Give exactly one of --integration or --user <email>." })
        let issued: IssuedToken
        if (Option.isSome(user)) {
          const found = yield* (yield* Users).findByEmail(user.value)
          const role = found === undefined ? undefined : yield* (yield* Memberships).roleOf(organizationId, found.id)
          if (found === undefined || role === undefined)
            return yield* new CliError({
              message: `${user.value} is not a member of ${org}. Add them first: helpdesk user add --org ${org} --email ${user.value} --role member`
            })
          issued = yield* tokens.issuePersonal(found.id, name)
        } else {
          issued = yield* tokens.issueIntegration(organizationId, name)
        }
        yield* (yield* Output).result(
          { id: issued.id, kind: issued.kind, token: issued.token, organization: org },
          `${issued.kind === "personal" ? "Personal" : "Integration"} token ${issued.id} (shown once): ${issued.token}`
        )
      })
    )
).pipe(Command.withDescription("Create a token and print it (the only time it is shown)."))

const tokenRevoke = Command.make("revoke", { reference: Args.text({ name: "token-or-id" }) }, ({ reference }) =>
  withServices(
    Effect.gen(function* () {
      const revoked = yield* (yield* Tokens)
        .revoke(reference)
        .pipe(Effect.mapError((error) => new CliError({ message: error.message })))
      yield* (yield* Output).result(
        { id: revoked.id, kind: revoked.kind, revoked_at: revoked.revokedAt?.toISOString() ?? null },
        `Token ${revoked.id} revoked.`
      )
    })
  )
).pipe(Command.withDescription("Revoke a token given its value or its id."))

const demo = Command.make(
  "demo",
  {
    ownerEmail: Options.text("owner-email").pipe(
      Options.withDefault("demo@example.com"),
      Options.withDescription("E-mail of the demo organization's owner (default demo@example.com).")
    ),
    name: Options.text("name").pipe(Options.withDefault("Demo Helpdesk"), Options.withDescription("Organization name."))
  },
  ({ ownerEmail, name }) =>
    Effect.gen(function* () {
      const email = yield* requireEmail(ownerEmail)
      const database = yield* CliDatabase
      const created = yield* createDemo({ ownerEmail: email, name }).pipe(
        Effect.provide(ServicesLive.pipe(Layer.provideMerge(database)))
      )
      yield* (yield* Output).result(
        created,
        `Demo organization "${created.organization.name}" (${created.organization.public_id}) created.\nToken: ${created.token}\nTry: ${created.try}`
      )
    })
).pipe(
  Command.withDescription(
    "Create a demo organization (inboxes, customers, tags, business hours, preset filters, a help-center tree) and print a token to try it with."
  )
)

/** The `helpdesk` command. */
export const helpdesk = Command.make("helpdesk").pipe(
  Command.withDescription("Helpdesk service and administration."),
  Command.withSubcommands([
    serve,
    worker,
    migrate,
    Command.make("org").pipe(Command.withSubcommands([orgCreate])),
    Command.make("user").pipe(Command.withSubcommands([userAdd])),
    Command.make("token").pipe(Command.withSubcommands([tokenCreate, tokenRevoke])),
    demo
  ])
)

/** Runs the CLI on `process.argv`-style arguments. */
export const runCli = Command.run(helpdesk, { name: "helpdesk", version: "0.1.0" })
