import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { AuthCache } from "./AuthCache.js"
import type { Caller } from "./CurrentCaller.js"
import * as TokenSecret from "./TokenSecret.js"

/** A stored token (never its plain value). */
export interface TokenRecord {
  readonly id: number
  readonly kind: TokenSecret.TokenKind
  readonly userId: number | null
  readonly organizationId: number | null
  readonly displayPrefix: string
  readonly name: string
  readonly createdAt: Date
  readonly revokedAt: Date | null
}

/** A token just created: the record and the plain token, which is shown this once. */
export interface IssuedToken extends TokenRecord {
  readonly token: string
}

/** No token matches the id or value given. */
export class TokenNotFound extends Schema.TaggedError<TokenNotFound>()("TokenNotFound", {
  reference: Schema.String
}) {
  override get message() {
    return `No token matches ${this.reference}.`
  }
}

interface TokenRow {
  readonly id: string
  readonly kind: TokenSecret.TokenKind
  readonly userId: string | null
  readonly organizationId: string | null
  readonly tokenHash: Uint8Array
  readonly displayPrefix: string
  readonly name: string
  readonly createdAt: Date
  readonly revokedAt: Date | null
}

const toRecord = (row: TokenRow): TokenRecord => ({
  id: Number(row.id),
  kind: row.kind,
  userId: row.userId === null ? null : Number(row.userId),
  organizationId: row.organizationId === null ? null : Number(row.organizationId),
  displayPrefix: row.displayPrefix,
  name: row.name,
  createdAt: row.createdAt,
  revokedAt: row.revokedAt
})

/** What a token check needs of a stored token row. */
export interface StoredTokenCheck {
  readonly id: string
  readonly kind: TokenSecret.TokenKind
  readonly userId: string | null
  readonly organizationId: string | null
  readonly tokenHash: Uint8Array
  readonly revokedAt: Date | null
}

/**
 * The caller a stored token row stands for, given the digest it was found by; none when revoked. The index finds
 * the row by hash; comparing in constant time keeps the check itself timing-safe.
 */
export const callerOfRow = (row: StoredTokenCheck | undefined, digest: Uint8Array): Option.Option<Caller> => {
  if (row === undefined || !TokenSecret.hashesEqual(row.tokenHash, digest) || row.revokedAt !== null)
    return Option.none()
  return Option.some(
    row.kind === "personal"
      ? { _tag: "Person", userId: Number(row.userId), tokenId: Number(row.id) }
      : { _tag: "Integration", organizationId: Number(row.organizationId), tokenId: Number(row.id) }
  )
}

/** Orderings of a person's token list. */
export const PersonalTokenOrdering = Ordering.make({
  columns: { id: "id", name: "name", created_at: "created_at" },
  defaults: ["-created_at"]
})

/**
 * Issues, authenticates and revokes API tokens. Authenticated callers are kept in the {@link AuthCache}; a
 * revocation reaches this process at once and every other within a second (decision 0658).
 */
export class Tokens extends Effect.Service<Tokens>()("@helpdesk/http/Auth/Tokens", {
  dependencies: [AuthCache.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cache = yield* AuthCache

    const insert = (kind: TokenSecret.TokenKind, owner: { userId?: number; organizationId?: number }, name: string) =>
      Effect.gen(function* () {
        const token = TokenSecret.generate(kind)
        const rows = yield* sql<TokenRow>`
          INSERT INTO api_tokens ${sql.insert({
            kind,
            userId: owner.userId ?? null,
            organizationId: owner.organizationId ?? null,
            tokenHash: TokenSecret.hash(token),
            displayPrefix: TokenSecret.displayPrefix(token),
            name
          })}
          RETURNING *`
        return { ...toRecord(rows[0]!), token } satisfies IssuedToken
      }).pipe(Effect.orDie)

    /** A personal token acting as the user. */
    const issuePersonal = (userId: number, name = "") => insert("personal", { userId }, name)

    /** An integration token acting with the role `token` in one organization. */
    const issueIntegration = (organizationId: number, name = "") => insert("integration", { organizationId }, name)

    /** The caller a token stands for; none for a malformed, unknown or revoked token. */
    const authenticate = (token: string): Effect.Effect<Option.Option<Caller>> =>
      Effect.gen(function* () {
        if (!TokenSecret.isWellFormed(token)) return Option.none()
        const digest = TokenSecret.hash(token)
        return yield* cache.caller(
          digest.toString("hex"),
          sql<TokenRow>`SELECT * FROM api_tokens WHERE token_hash = ${digest}`.pipe(
            Effect.map((rows) => callerOfRow(rows[0], digest)),
            Effect.withSpan("Tokens.authenticate", { captureStackTrace: false })
          )
        )
      }).pipe(Effect.orDie)

    // Revokes the rows a condition names and forgets them here; other processes hear the table's trigger.
    const revokeWhere = (where: ReturnType<typeof sql.and>) =>
      sql<TokenRow>`
        UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE ${where} RETURNING *`.pipe(
        Effect.tap((rows) =>
          Effect.forEach(rows, (row) =>
            cache.invalidate({ _tag: "Token", hashHex: Buffer.from(row.tokenHash).toString("hex") })
          )
        )
      )

    /** Revokes a token given its plain value or its numeric id; revoking twice is harmless. */
    const revoke = (reference: string): Effect.Effect<TokenRecord, TokenNotFound> =>
      Effect.gen(function* () {
        const trimmed = reference.trim()
        const rows = TokenSecret.isWellFormed(trimmed)
          ? yield* revokeWhere(sql.and([sql`token_hash = ${TokenSecret.hash(trimmed)}`]))
          : /^\d{1,15}$/.test(trimmed)
            ? yield* revokeWhere(sql.and([sql`id = ${Number(trimmed)}`]))
            : []
        const row = rows[0]
        if (row === undefined)
          return yield* new TokenNotFound({ reference: TokenSecret.isWellFormed(trimmed) ? "that token" : trimmed })
        return toRecord(row)
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const personal = (userId: number) => sql`kind = 'personal' AND user_id = ${userId}`

    /** One of the user's personal tokens (revoked ones too), or undefined. */
    const findPersonal = (userId: number, id: number): Effect.Effect<TokenRecord | undefined> =>
      sql<TokenRow>`SELECT * FROM api_tokens WHERE ${personal(userId)} AND id = ${id}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : toRecord(rows[0]))),
        Effect.orDie
      )

    /** Revokes one of the user's own personal tokens (another's is unknown to them); revoking twice is harmless. */
    const revokePersonal = (userId: number, id: number): Effect.Effect<TokenRecord, TokenNotFound> =>
      revokeWhere(sql.and([personal(userId), sql`id = ${id}`])).pipe(
        Effect.catchTag("SqlError", Effect.die),
        Effect.flatMap((rows) =>
          rows[0] === undefined ? new TokenNotFound({ reference: String(id) }) : Effect.succeed(toRecord(rows[0]))
        )
      )

    /** The user's personal tokens (revoked ones too, never their secrets), one page in the requested order. */
    const listPersonal = (userId: number, ordering: Ordering.Ordering<string>) =>
      Pagination.page(sql, {
        from: sql`api_tokens`,
        select: sql`SELECT * FROM api_tokens`,
        where: personal(userId),
        ordering,
        decode: toRecord
      })

    return {
      issuePersonal,
      issueIntegration,
      authenticate,
      revoke,
      findPersonal,
      revokePersonal,
      listPersonal
    } as const
  })
}) {}
