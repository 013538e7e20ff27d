import { Args, Command, Options } from "@effect/cli"
import { SqlClient } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Config, Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import { migrateBlobs } from "../Attachments/BlobMigration.js"
import {
  BLOB_STORE_KINDS,
  BlobStore,
  type BlobStoreKind,
  blobStoreKind,
  blobStoreLayer
} from "../Attachments/BlobStore.js"
import { MEMBER_ROLES } from "../Auth/CurrentCaller.js"
import { type IssuedToken, Tokens } from "../Auth/Tokens.js"
import { PgLive } from "../Database/Database.js"
import type * as PgPool from "../Database/PgPool.js"
import { createDemo } from "../Demo/Demo.js"
import { isEmail } from "../Http/Fields.js"
import { publicBaseUrl } from "../Http/PublicBaseUrl.js"
import { organizationWire } from "../Organizations/Api.js"
import { Organizations } from "../Organizations/Organizations.js"
import { ServerLive, WorkersLive } from "../Server.js"
import { ServicesLive } from "../Services.js"
import { TicketServicesLive } from "../Tickets/TicketServices.js"
import { Memberships } from "../Users/Memberships.js"
import { Users } from "../Users/Users.js"
import { listOrganizations, listTokens, listUsers, migrationStatus } from "./Listings.js"
import { Output } from "./Output.js"

/**
 * The database the commands use, as a layer built only when a command needs it (so `--help` touches nothing).
 * The CLI provides `DatabaseLive`; tests provide their test database.
 */
export class CliDatabase extends Context.Tag("@helpdesk/http/Cli/CliDatabase")<
  CliDatabase,
  Layer.Layer<SqlClient.SqlClient | PgPool.PgPool, unknown>
>() {}

/**
 * The database `migrate --status` reads, without running any migration (the CLI's default: the SQL client of
 * `DATABASE_URL` or the embedded database; tests provide their test database).
 */
export class CliUnmigratedDatabase extends Context.Reference<CliUnmigratedDatabase>()(
  "@helpdesk/http/Cli/CliUnmigratedDatabase",
  { defaultValue: (): Layer.Layer<SqlClient.SqlClient, unknown> => PgLive }
) {}

/** A refusal the CLI reports as a one-line error (exit code 1), not a stack trace. */
export class CliError extends Schema.TaggedError<CliError>()("CliError", { message: Schema.String }) {}

/** A command line the CLI cannot run (exit code 2), reported in one line pointing at the command's `--help`. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {}

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

/** `--org`: the organization a command works in, by its public id (looked up with {@link findOrganization}). */
const organizationOption = Options.text("org").pipe(Options.withDescription("The organization's public id."))

const findOrganization = (publicId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly id: string }>`SELECT id FROM organizations WHERE public_id = ${publicId}`.pipe(
      Effect.orDie
    )
    if (rows[0] === undefined) return yield* new CliError({ message: `No organization has the id "${publicId}".` })
    return OrganizationId.make(String(rows[0].id))
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

const migrate = Command.make(
  "migrate",
  {
    status: Options.boolean("status").pipe(
      Options.withDescription("Only list the applied and the pending migrations; run none.")
    )
  },
  ({ status }) =>
    Effect.gen(function* () {
      const output = yield* Output
      if (status) {
        const found = yield* migrationStatus.pipe(Effect.provide(yield* CliUnmigratedDatabase))
        return yield* output.result(
          found,
          [
            `Applied (${found.applied.length}):`,
            ...found.applied.map((m) => `  ${m.id} ${m.name}  ${m.applied_at}`),
            `Pending (${found.pending.length}):`,
            ...found.pending.map((m) => `  ${m.id} ${m.name}`)
          ].join("\n")
        )
      }
      const database = yield* CliDatabase
      yield* Effect.provide(Effect.void, database)
      yield* output.result({ migrated: true }, "Database migrated.")
    })
).pipe(Command.withDescription("Run pending database migrations (or, with --status, list them)."))

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
        const baseUrl = yield* publicBaseUrl
        yield* (yield* Output).result(
          {
            organization: organizationWire(organization, DateTime.toDate(yield* DateTime.now)),
            owner: { id: owner.id, email: owner.email, name: owner.name },
            token: { id: token.id, kind: token.kind, token: token.token }
          },
          [
            `Organization "${organization.name}" created: ${organization.publicId}`,
            `Owner: ${owner.email}`,
            `Personal token (shown once): ${token.token}`,
            `Try: curl -H "X-Service-Token: ${token.token}" ${baseUrl}/organizations/`
          ].join("\n")
        )
      })
    )
).pipe(Command.withDescription("Create an organization with its owner, and print the owner's personal token."))

const userAdd = Command.make(
  "add",
  {
    org: organizationOption,
    email: Options.text("email").pipe(Options.withDescription("The user's e-mail (created if new).")),
    role: Options.choice("role", MEMBER_ROLES).pipe(
      Options.withDefault("member" as const),
      Options.withDescription("Their role in the organization (default member).")
    ),
    name: Options.text("name").pipe(Options.withDefault(""), Options.withDescription("The user's name, if new."))
  },
  ({ email, name, org, role }) =>
    withServices(
      Effect.gen(function* () {
        const address = yield* requireEmail(email)
        const organizationId = yield* findOrganization(org)
        const user = yield* (yield* Users).ensure(address, name.trim())
        yield* (yield* Memberships)
          .put(organizationId, user.id, role)
          .pipe(Effect.mapError((error) => new CliError({ message: error.message })))
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
    org: organizationOption,
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

const tokenRevoke = Command.make(
  "revoke",
  { reference: Args.text({ name: "token-or-id" }).pipe(Args.withDescription("The token itself, or its id.")) },
  ({ reference }) =>
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
      const baseUrl = yield* publicBaseUrl
      const created = yield* createDemo({ ownerEmail: email, name, baseUrl }).pipe(
        Effect.provide(TicketServicesLive.pipe(Layer.provideMerge(ServicesLive), Layer.provideMerge(database)))
      )
      yield* (yield* Output).result(
        created,
        [
          `Demo organization "${created.organization.name}" (${created.organization.public_id}) created, with ${created.tickets.length} tickets.`,
          `Personal token (shown once): ${created.token.token}`,
          `Try: ${created.try}`
        ].join("\n")
      )
    })
).pipe(
  Command.withDescription(
    "Create a demo organization (inboxes, customers, tickets, tags, business hours, preset filters, a help-center tree) and print a token to try it with."
  )
)

const orgList = Command.make("list", {}, () =>
  withServices(
    Effect.gen(function* () {
      const organizations = yield* listOrganizations
      yield* (yield* Output).result(
        { organizations },
        organizations.length === 0
          ? "No organizations yet."
          : organizations.map((o) => `${o.public_id}  ${o.name}  (${o.members} members)`).join("\n")
      )
    })
  )
).pipe(Command.withDescription("List the organizations: public id, name, members, creation time."))

const userList = Command.make(
  "list",
  {
    org: Options.optional(Options.text("org")).pipe(
      Options.withDescription("Only the members of this organization (its public id), with their role.")
    )
  },
  ({ org }) =>
    withServices(
      Effect.gen(function* () {
        const organizationId = Option.isSome(org) ? Option.some(yield* findOrganization(org.value)) : Option.none()
        const users = yield* listUsers(organizationId)
        yield* (yield* Output).result(
          { users },
          users.length === 0
            ? "No users."
            : users
                .map(
                  (u) => `${u.email}  ${u.name}  ${u.memberships.map((m) => `${m.organization}:${m.role}`).join(" ")}`
                )
                .join("\n")
        )
      })
    )
).pipe(Command.withDescription("List the users and their memberships (of one organization with --org)."))

const tokenList = Command.make(
  "list",
  {
    org: Options.optional(Options.text("org")).pipe(
      Options.withDescription(
        "Only tokens that act in this organization: its integration tokens and its members' personal ones."
      )
    ),
    user: Options.optional(Options.text("user")).pipe(
      Options.withDescription("Only this user's personal tokens (e-mail).")
    )
  },
  ({ org, user }) =>
    withServices(
      Effect.gen(function* () {
        if (Option.isSome(org) && Option.isSome(user))
          return yield* new UsageError({ message: "give at most one of --org or --user" })
        const filter = Option.isSome(org)
          ? ({ _tag: "Organization", id: yield* findOrganization(org.value) } as const)
          : Option.isSome(user)
            ? ({ _tag: "User", email: user.value.trim().toLowerCase() } as const)
            : ({ _tag: "All" } as const)
        const tokens = yield* listTokens(filter)
        yield* (yield* Output).result(
          { tokens },
          tokens.length === 0
            ? "No tokens."
            : tokens
                .map(
                  (t) =>
                    `${t.id}  ${t.prefix}  ${t.kind}  ${t.user ?? t.organization ?? ""}  ${t.name}  created ${t.created_at}${t.revoked_at === null ? "" : `  revoked ${t.revoked_at}`}`
                )
                .join("\n")
        )
      })
    )
).pipe(
  Command.withDescription("List tokens without their secrets: id, prefix, kind, owner, name, created and revoked.")
)

const blobsMigrate = Command.make(
  "migrate",
  {
    to: Options.choice("to", BLOB_STORE_KINDS).pipe(Options.withDescription("The store to copy attachments into.")),
    from: Options.choice("from", BLOB_STORE_KINDS).pipe(
      Options.optional,
      Options.withDescription("The store to copy from (default: the configured one, env BLOB_STORE).")
    )
  },
  ({ to, from }) =>
    Effect.gen(function* () {
      const source = Option.isSome(from) ? from.value : yield* blobStoreKind
      if (source === to)
        return yield* new CliError({ message: `Attachments are in the ${to} store already: name another with --to.` })
      const database = yield* CliDatabase
      const report = yield* Effect.scoped(
        Effect.gen(function* () {
          const storeOf = (kind: BlobStoreKind) =>
            Effect.map(Layer.build(blobStoreLayer(kind)), (context) => Context.get(context, BlobStore))
          return yield* migrateBlobs(yield* storeOf(source), yield* storeOf(to))
        })
      ).pipe(Effect.provide(database))
      yield* (yield* Output).result(
        { from: source, to, ...report },
        [
          `Copied ${report.copied} attachment file(s) (${report.bytes.toLocaleString("en")} bytes) from ${source} to ${to}.`,
          `Already in ${to}: ${report.alreadyThere}.`,
          report.missing.length === 0
            ? "Missing from both: none."
            : `Missing from both (${report.missing.length}): ${report.missing.join(", ")}`,
          `Set BLOB_STORE=${to} on every replica; ${source} keeps its copies until you remove them.`
        ].join("\n")
      )
    })
).pipe(
  Command.withDescription(
    "Copy every attachment's file from one blob store to another (repeatable: files already there are skipped)."
  )
)

/** A group of subcommands: run alone, it is a usage error naming them. */
const group = <const Name extends string>(name: Name, description: string, subcommands: ReadonlyArray<string>) =>
  Command.make(name, {}, () =>
    Effect.fail(new UsageError({ message: `missing subcommand: ${subcommands.join(", ")}` }))
  ).pipe(Command.withDescription(description))

/**
 * The commands, as paths of names: a usage error points at the `--help` of the longest one its command line
 * starts with.
 */
export const COMMAND_PATHS: ReadonlyArray<ReadonlyArray<string>> = [
  ["serve"],
  ["worker"],
  ["migrate"],
  ["org", "create"],
  ["org", "list"],
  ["org"],
  ["user", "add"],
  ["user", "list"],
  ["user"],
  ["token", "create"],
  ["token", "list"],
  ["token", "revoke"],
  ["token"],
  ["blobs", "migrate"],
  ["blobs"],
  ["demo"]
]

/** The `helpdesk` command. */
export const helpdesk = Command.make("helpdesk", {}, () =>
  Effect.fail(new UsageError({ message: "missing command" }))
).pipe(
  Command.withDescription("Helpdesk service and administration."),
  Command.withSubcommands([
    serve,
    worker,
    migrate,
    group("org", "Organizations: create one with its owner, list them.", ["create", "list"]).pipe(
      Command.withSubcommands([orgCreate, orgList])
    ),
    group("user", "Users: add one to an organization (or change their role), list them.", ["add", "list"]).pipe(
      Command.withSubcommands([userAdd, userList])
    ),
    group("token", "API tokens: create, list (never their secrets) and revoke.", ["create", "list", "revoke"]).pipe(
      Command.withSubcommands([tokenCreate, tokenList, tokenRevoke])
    ),
    group("blobs", "Attachment files: copy them between blob stores.", ["migrate"]).pipe(
      Command.withSubcommands([blobsMigrate])
    ),
    demo
  ])
)

/** Runs the CLI on `process.argv`-style arguments. */
export const runCli = Command.run(helpdesk, { name: "helpdesk", version: "0.1.0" })
