import { SqlClient, SqlSchema } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Effect, Option, Schema } from "effect"
import { BigInt8, OrganizationIdColumn, Timestamptz } from "../Database/Columns.js"
import { dieUndecodable } from "../Database/Rows.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import { AuthCache } from "./AuthCache.js"
import type { Caller } from "./CurrentCaller.js"
import * as TokenSecret from "./TokenSecret.js"

/** The kinds of API token: a person's own, or an organization's integration (one per token prefix). */
export const TokenKind = Schema.Literal(
  ...(Object.keys(TokenSecret.TOKEN_PREFIX) as Array<keyof typeof TokenSecret.TOKEN_PREFIX>)
)

/** A stored token (never its plain value). */
export const TokenRecord = Schema.Struct({
  id: Schema.Int,
  kind: TokenKind,
  userId: Schema.NullOr(Schema.Int),
  organizationId: Schema.NullOr(OrganizationId),
  displayPrefix: Schema.String,
  name: Schema.String,
  createdAt: Timestamptz,
  revokedAt: Schema.NullOr(Timestamptz)
})

/** A stored token (never its plain value). */
export type TokenRecord = typeof TokenRecord.Type

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

/** A row of `api_tokens` (`id, kind, user_id, organization_id, display_prefix, name, created_at, revoked_at`). */
const TokenRow = Schema.Struct({
  ...TokenRecord.fields,
  id: BigInt8,
  userId: Schema.NullOr(BigInt8),
  organizationId: Schema.NullOr(OrganizationIdColumn)
})

/** A revoked row, with the hash under which its caller is cached. */
const RevokedRow = Schema.Struct({ ...TokenRow.fields, tokenHash: Schema.Uint8ArrayFromSelf })
const decodeRevoked = Schema.decodeUnknown(Schema.Array(RevokedRow))

/** What a token check reads of a stored token row (`id, kind, user_id, organization_id, token_hash, revoked_at`). */
const TokenCheck = Schema.Struct({
  id: BigInt8,
  kind: TokenKind,
  userId: Schema.NullOr(BigInt8),
  organizationId: Schema.NullOr(OrganizationIdColumn),
  tokenHash: Schema.Uint8ArrayFromSelf,
  revokedAt: Schema.NullOr(Timestamptz)
})

/** The caller a decoded token row stands for, given the digest it was found by; none when revoked. */
const callerOf = (token: typeof TokenCheck.Type, digest: Uint8Array): Option.Option<Caller> => {
  if (!TokenSecret.hashesEqual(token.tokenHash, digest) || token.revokedAt !== null) return Option.none()
  return Option.some(
    token.kind === "personal"
      ? { _tag: "Person", userId: token.userId!, tokenId: token.id }
      : { _tag: "Integration", organizationId: token.organizationId!, tokenId: token.id }
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

    const columns = sql`id, kind, user_id, organization_id, display_prefix, name, created_at, revoked_at`

    const insertRow = SqlSchema.single({
      Request: Schema.Struct({
        kind: TokenKind,
        userId: Schema.NullOr(Schema.Number),
        organizationId: Schema.NullOr(OrganizationId),
        tokenHash: Schema.Uint8ArrayFromSelf,
        displayPrefix: Schema.String,
        name: Schema.String
      }),
      Result: TokenRow,
      execute: (row) => sql`INSERT INTO api_tokens ${sql.insert(row)} RETURNING ${columns}`
    })

    const insert = (
      kind: TokenSecret.TokenKind,
      owner: { userId?: number; organizationId?: OrganizationId },
      name: string
    ) =>
      Effect.gen(function* () {
        const token = TokenSecret.generate(kind)
        const record = yield* insertRow({
          kind,
          userId: owner.userId ?? null,
          organizationId: owner.organizationId ?? null,
          tokenHash: TokenSecret.hash(token),
          displayPrefix: TokenSecret.displayPrefix(token),
          name
        })
        return { ...record, token } satisfies IssuedToken
      }).pipe(dieUndecodable("api_tokens"), Effect.orDie)

    /** A personal token acting as the user. */
    const issuePersonal = (userId: number, name = "") => insert("personal", { userId }, name)

    /** An integration token acting with the role `token` in one organization. */
    const issueIntegration = (organizationId: OrganizationId, name = "") =>
      insert("integration", { organizationId }, name)

    const findByHash = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: TokenCheck,
      execute: (digest) => sql`
        SELECT id, kind, user_id, organization_id, token_hash, revoked_at FROM api_tokens WHERE token_hash = ${digest}`
    })

    /** The caller a token stands for; none for a malformed, unknown or revoked token. */
    const authenticate = (token: string): Effect.Effect<Option.Option<Caller>> =>
      Effect.gen(function* () {
        if (!TokenSecret.isWellFormed(token)) return Option.none()
        const digest = TokenSecret.hash(token)
        return yield* cache.caller(
          digest.toString("hex"),
          findByHash(digest).pipe(
            Effect.map(Option.flatMap((row) => callerOf(row, digest))),
            dieUndecodable("api_tokens"),
            withSpan("Tokens.authenticate")
          )
        )
      }).pipe(Effect.orDie)

    // Revokes the rows a condition names and forgets them here; other processes hear the table's trigger. The
    // cache forgets each hash before the rows are decoded: the revocation is committed whatever they decode to.
    const revokeWhere = (where: ReturnType<typeof sql.and>) =>
      sql<{ readonly tokenHash: Uint8Array }>`
        UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE ${where}
        RETURNING ${columns}, token_hash`.pipe(
        Effect.tap((rows) =>
          Effect.forEach(rows, (row) =>
            cache.invalidate({ _tag: "Token", hashHex: Buffer.from(row.tokenHash).toString("hex") })
          )
        ),
        Effect.flatMap(decodeRevoked),
        Effect.map((rows) => rows.map(({ tokenHash: _, ...record }): TokenRecord => record)),
        dieUndecodable("api_tokens"),
        Effect.catchTag("SqlError", Effect.die)
      )

    /** Revokes a token given its plain value or its numeric id; revoking twice is harmless. */
    const revoke = (reference: string): Effect.Effect<TokenRecord, TokenNotFound> =>
      Effect.gen(function* () {
        const trimmed = reference.trim()
        const records = TokenSecret.isWellFormed(trimmed)
          ? yield* revokeWhere(sql.and([sql`token_hash = ${TokenSecret.hash(trimmed)}`]))
          : /^\d{1,15}$/.test(trimmed)
            ? yield* revokeWhere(sql.and([sql`id = ${Number(trimmed)}`]))
            : []
        const record = records[0]
        if (record === undefined)
          return yield* new TokenNotFound({ reference: TokenSecret.isWellFormed(trimmed) ? "that token" : trimmed })
        return record
      })

    const personal = (userId: number) => sql`kind = 'personal' AND user_id = ${userId}`

    const findOnePersonal = SqlSchema.findOne({
      Request: Schema.Struct({ userId: Schema.Number, id: Schema.Number }),
      Result: TokenRow,
      execute: ({ userId, id }) => sql`SELECT ${columns} FROM api_tokens WHERE ${personal(userId)} AND id = ${id}`
    })

    /** One of the user's personal tokens (revoked ones too), or undefined. */
    const findPersonal = (userId: number, id: number): Effect.Effect<TokenRecord | undefined> =>
      findOnePersonal({ userId, id }).pipe(
        Effect.map(Option.getOrUndefined),
        dieUndecodable("api_tokens"),
        Effect.orDie,
        withSpan("Tokens.findPersonal")
      )

    /** Revokes one of the user's own personal tokens (another's is unknown to them); revoking twice is harmless. */
    const revokePersonal = (userId: number, id: number): Effect.Effect<TokenRecord, TokenNotFound> =>
      revokeWhere(sql.and([personal(userId), sql`id = ${id}`])).pipe(
        Effect.flatMap((records) =>
          records[0] === undefined ? new TokenNotFound({ reference: String(id) }) : Effect.succeed(records[0])
        )
      )

    /** The user's personal tokens (revoked ones too, never their secrets), one page in the requested order. */
    const listPersonal = (userId: number, ordering: Ordering.Ordering<string>) =>
      Pagination.page(sql, {
        from: sql`api_tokens`,
        select: sql`SELECT ${columns} FROM api_tokens`,
        where: personal(userId),
        ordering,
        rows: { table: "api_tokens", schema: TokenRow }
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
