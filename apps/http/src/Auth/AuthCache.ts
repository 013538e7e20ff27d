import { OrganizationId, type UserRef } from "@helpdesk/domain"
import { Config, Deferred, Effect, Exit, Option, Schedule } from "effect"
import pg from "pg"
import { PgPool } from "../Database/PgPool.js"
import type { Caller, Role } from "./CurrentCaller.js"
import { LruMap } from "./LruMap.js"

/**
 * The channel on which the database announces changes to who may call (decision 0658). Its triggers send
 * `token:<sha-256 hex>` when a token row changes, `user:<id>` when a person's memberships or profile change or the
 * person is removed, and `org:<id>` when an organization's public id changes or it is removed.
 */
export const AUTH_CHANGED_CHANNEL = "hd_auth_changed"

/** How long an entry is trusted while this process hears every change (a safety net, not the invalidation). */
export const LISTENING_TTL_MS = 60_000

/**
 * How long an entry is trusted while this process cannot hear changes (the embedded database, a pooler, the
 * listener reconnecting): a revocation made elsewhere then still reaches it within a second.
 */
export const DEAF_TTL_MS = 500

const HEARTBEAT = "5 seconds"
const HEARTBEAT_TIMEOUT = "5 seconds"
const RECONNECT = Schedule.exponential("250 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))

/** A caller's membership in an organization, as `OrganizationAccess` resolves a path's `{organization_id}`. */
export interface Membership {
  readonly organizationId: OrganizationId
  readonly role: Role
}

/** What changed, so the entries depending on it are forgotten. */
export type AuthChange =
  | { readonly _tag: "Token"; readonly hashHex: string }
  | { readonly _tag: "User"; readonly userId: number }
  | { readonly _tag: "Organization"; readonly organizationId: OrganizationId }
  | { readonly _tag: "Everything" }

/** The change a notification's payload names; anything unreadable forgets everything. */
export const parseChange = (payload: string): AuthChange => {
  const [kind, value = ""] = payload.split(":", 2)
  if (kind === "token" && /^[0-9a-f]{64}$/.test(value)) return { _tag: "Token", hashHex: value }
  if (kind === "user" && /^\d{1,18}$/.test(value)) return { _tag: "User", userId: Number(value) }
  if (kind === "org" && /^\d{1,18}$/.test(value))
    return { _tag: "Organization", organizationId: OrganizationId.make(value) }
  return { _tag: "Everything" }
}

interface Entry<A> {
  readonly value: A
  readonly expiresAt: number
  /** The person the entry depends on, if any. */
  readonly userId: number | null
  /** The organization the entry depends on, if any. */
  readonly organizationId: OrganizationId | null
}

const dependsOn = (caller: Caller) =>
  caller._tag === "Person"
    ? { userId: caller.userId, organizationId: null }
    : { userId: null, organizationId: caller.organizationId }

/**
 * Authenticated callers by token hash, their memberships by organization and the profiles they sign their writes
 * with, kept in this process so that a request needs no statement to know who calls, with which role and under
 * which name (decision 0658). Bounded (least recently used
 * forgotten first, `AUTH_CACHE_SIZE` entries of each kind, default 10,000; 0 turns caching off) and expiring.
 *
 * Changes reach it two ways: this process's own writes call {@link invalidate} right away, and a dedicated
 * connection `LISTEN`s on {@link AUTH_CHANGED_CHANNEL} for everyone's (other replicas, the command line). The
 * listener starts with the first lookup; while it is not connected, entries live {@link DEAF_TTL_MS}; when it
 * connects or loses its connection, everything is forgotten (changes may have been missed).
 */
export class AuthCache extends Effect.Service<AuthCache>()("@helpdesk/http/Auth/AuthCache", {
  dependencies: [],
  scoped: Effect.gen(function* () {
    const capacity = yield* Config.integer("AUTH_CACHE_SIZE").pipe(Config.withDefault(10_000))
    const { pool, namedStatements } = yield* PgPool
    const callers = new LruMap<string, Entry<Caller>>(capacity)
    const memberships = new LruMap<string, Entry<Membership>>(capacity)
    const profiles = new LruMap<string, Entry<UserRef>>(capacity)
    // Bumped by every invalidation: a lookup that began before one does not store what it read.
    let generation = 0
    let listening = false
    // How many times the listener has begun to listen (each time after forgetting everything).
    let connections = 0
    let started = false

    const invalidate = (change: AuthChange): void => {
      generation++
      switch (change._tag) {
        case "Token":
          callers.delete(change.hashHex)
          break
        case "User":
          callers.deleteWhere((entry) => entry.userId === change.userId)
          memberships.deleteWhere((entry) => entry.userId === change.userId)
          profiles.delete(String(change.userId))
          break
        case "Organization":
          callers.deleteWhere((entry) => entry.organizationId === change.organizationId)
          memberships.deleteWhere((entry) => entry.organizationId === change.organizationId)
          break
        case "Everything":
          callers.clear()
          memberships.clear()
          profiles.clear()
      }
    }

    // One session, kept open, that hears every committed change; reconnects (forgetting everything) when lost.
    const listenOnce = Effect.gen(function* () {
      const client = yield* Effect.acquireRelease(
        Effect.tryPromise(async () => {
          const client = new pg.Client({
            ...pool.options,
            keepAlive: true,
            application_name: `${pool.options.application_name ?? "helpdesk"} auth listener`
          })
          // Heard through `lost` below; unheard, an error event would crash the process.
          client.on("error", () => {})
          await client.connect()
          return client
        }),
        (client) => Effect.promise(() => client.end()).pipe(Effect.timeoutOption("1 second"), Effect.ignore)
      )
      const lost = yield* Deferred.make<void, Error>()
      client.on("error", (error) => Deferred.unsafeDone(lost, Exit.fail(error)))
      client.on("end", () => Deferred.unsafeDone(lost, Exit.fail(new Error("listener connection ended"))))
      client.on("notification", (message) => {
        if (message.channel === AUTH_CHANGED_CHANNEL) invalidate(parseChange(message.payload ?? ""))
      })
      yield* Effect.tryPromise(() => client.query(`LISTEN ${AUTH_CHANGED_CHANNEL}`))
      invalidate({ _tag: "Everything" })
      listening = true
      connections++
      yield* Effect.logDebug("Listening for changes to tokens and memberships")
      // A connection that went silent (no error, no end) is found by its heartbeat.
      const heartbeat = Effect.tryPromise(() => client.query("SELECT 1")).pipe(
        Effect.timeoutFail({ duration: HEARTBEAT_TIMEOUT, onTimeout: () => new Error("listener heartbeat timed out") }),
        Effect.repeat(Schedule.spaced(HEARTBEAT))
      )
      return yield* Effect.raceFirst(Deferred.await(lost), heartbeat)
    }).pipe(
      Effect.scoped,
      Effect.ensuring(
        Effect.sync(() => {
          listening = false
          invalidate({ _tag: "Everything" })
        })
      )
    )

    // Started by the first lookup (a command-line run never looks up, and needs no listener), from here so that it
    // runs in the service's context rather than in the first request's. Only where each connection is a session of
    // its own can one `LISTEN` (as for named statements, PgPool.ts): elsewhere entries always live DEAF_TTL_MS.
    const start = yield* Deferred.make<void>()
    if (namedStatements && capacity > 0)
      yield* Effect.forkScoped(
        Deferred.await(start).pipe(
          Effect.zipRight(
            listenOnce.pipe(
              Effect.tapErrorCause((cause) =>
                Effect.logWarning(
                  `Not listening for changes to tokens and memberships; entries kept ${DEAF_TTL_MS} ms`,
                  cause
                )
              ),
              Effect.retry(RECONNECT)
            )
          )
        )
      )
    const ensureListening = () => {
      if (!started) {
        started = true
        Deferred.unsafeDone(start, Exit.void)
      }
    }

    const lookup = <A, E, R>(
      map: LruMap<string, Entry<A>>,
      key: string,
      load: Effect.Effect<Option.Option<A>, E, R>,
      depends: (value: A) => { readonly userId: number | null; readonly organizationId: OrganizationId | null }
    ): Effect.Effect<Option.Option<A>, E, R> =>
      Effect.suspend(() => {
        const entry = map.get(key)
        if (entry !== undefined) {
          if (entry.expiresAt > Date.now()) return Effect.succeed(Option.some(entry.value))
          map.delete(key)
        }
        const before = generation
        ensureListening()
        return Effect.tap(load, (found) => {
          if (Option.isNone(found) || generation !== before) return
          const ttl = listening ? LISTENING_TTL_MS : DEAF_TTL_MS
          map.set(key, { value: found.value, expiresAt: Date.now() + ttl, ...depends(found.value) })
        })
      })

    return {
      /** The caller of a token given its SHA-256 in hex, from `load` when not known (unknown tokens are not kept). */
      caller: <E, R>(hashHex: string, load: Effect.Effect<Option.Option<Caller>, E, R>) =>
        lookup(callers, hashHex, load, dependsOn),
      /** The caller's membership in the organization with this public id, from `load` when not known. */
      membership: <E, R>(caller: Caller, publicId: string, load: Effect.Effect<Option.Option<Membership>, E, R>) =>
        lookup(
          memberships,
          caller._tag === "Person" ? `u${caller.userId}/${publicId}` : `i${caller.organizationId}/${publicId}`,
          load,
          (membership) => ({
            userId: caller._tag === "Person" ? caller.userId : null,
            organizationId: membership.organizationId
          })
        ),
      /**
       * A person's `<user_ref>` (name, e-mail, picture) as the messages and changes they write are signed, from
       * `load` when not known: a writer's own profile needs no statement on each write.
       */
      person: <E, R>(userId: number, load: Effect.Effect<Option.Option<UserRef>, E, R>) =>
        lookup(profiles, String(userId), load, () => ({ userId, organizationId: null })),
      /** Forgets what depends on a change this process made (others hear it through the database). */
      invalidate: (change: AuthChange) => Effect.sync(() => invalidate(change)),
      /** Whether changes made elsewhere are heard right now, how often listening began, how many entries are kept. */
      status: Effect.sync(() => ({
        listening,
        connections,
        callers: callers.size,
        memberships: memberships.size,
        profiles: profiles.size
      }))
    } as const
  })
}) {}
