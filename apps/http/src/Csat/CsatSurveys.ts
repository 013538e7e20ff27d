import { SqlClient } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Config, Effect } from "effect"
import { publicBaseUrl } from "../Http/PublicBaseUrl.js"
import { withSpan } from "../Observability/Spans.js"
import { generateSurveyToken, hashSurveyToken, isSurveyToken } from "./CsatToken.js"

/** A survey found by its token. */
export interface CsatSurvey {
  readonly id: number
  readonly organizationId: OrganizationId
  readonly organizationName: string
  readonly ticketId: number
  readonly answeredAt: Date | null
}

interface SurveyRow {
  readonly id: string
  readonly organizationId: string
  readonly organizationName: string
  readonly ticketId: string
  readonly answeredAt: Date | null
}

/**
 * CSAT surveys (docs/decisions/0770-auto-replies-and-csat.md): one per ticket, offered when the organization has
 * `enable_csat`, answered once through the link's token. Runs in the caller's transaction; SQL failures are defects.
 */
export class CsatSurveys extends Effect.Service<CsatSurveys>()("@helpdesk/http/Csat/CsatSurveys", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const baseUrl = yield* publicBaseUrl
    const surveyUrl = yield* Config.string("CSAT_SURVEY_URL").pipe(Config.withDefault(`${baseUrl}/csat/{token}/`))

    /**
     * Opens the ticket's survey when the organization asks for surveys and the ticket has none yet; answers the
     * link to send, or `undefined`.
     */
    const offer = (organizationId: OrganizationId, ticketId: number) =>
      Effect.gen(function* () {
        const token = generateSurveyToken()
        const rows = yield* sql<{ readonly id: string }>`
          INSERT INTO hd_csat_surveys (organization_id, ticket_id, token_hash)
          SELECT o.id, ${ticketId}, ${hashSurveyToken(token)} FROM organizations o
          WHERE o.id = ${organizationId} AND o.enable_csat
          ON CONFLICT (ticket_id) DO NOTHING
          RETURNING id`
        return rows.length === 0 ? undefined : surveyUrl.replace("{token}", token)
      }).pipe(Effect.orDie, withSpan("CsatSurveys.offer"))

    /** The survey a token opens, or `undefined` for a malformed or unknown token. */
    const find = (token: string) =>
      isSurveyToken(token)
        ? sql<SurveyRow>`
            SELECT s.id, s.organization_id, o.name AS organization_name, s.ticket_id, s.answered_at
            FROM hd_csat_surveys s JOIN organizations o ON o.id = s.organization_id
            WHERE s.token_hash = ${hashSurveyToken(token)}`.pipe(
            Effect.map((rows): CsatSurvey | undefined => {
              const row = rows[0]
              return row === undefined
                ? undefined
                : {
                    id: Number(row.id),
                    organizationId: OrganizationId.make(row.organizationId),
                    organizationName: row.organizationName,
                    ticketId: Number(row.ticketId),
                    answeredAt: row.answeredAt
                  }
            }),
            Effect.orDie
          )
        : Effect.succeed(undefined)

    /** Marks the survey answered; `false` when it already was (a concurrent answer won). */
    const markAnswered = (surveyId: number) =>
      sql`UPDATE hd_csat_surveys SET answered_at = now() WHERE id = ${surveyId} AND answered_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.orDie
      )

    return { offer, find, markAnswered } as const
  })
}) {}
