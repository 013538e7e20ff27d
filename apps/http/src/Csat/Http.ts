import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { RecordCsatResponse } from "@helpdesk/domain"
import { Effect, Layer, Schema } from "effect"
import { Api } from "../Api.js"
import { Conflict, NotFound } from "../Http/Errors.js"
import * as RequestBody from "../Http/RequestBody.js"
import { TicketCommands } from "../Tickets/TicketCommands.js"
import { toHttpError } from "../Tickets/TicketHttpErrors.js"
import { TicketQueries } from "../Tickets/TicketQueries.js"
import { TicketServicesLive } from "../Tickets/TicketServices.js"
import { answeredPage, surveyPage } from "./CsatPage.js"
import { CsatAnswer, CsatSurveyView } from "./CsatSurvey.js"
import { type CsatSurvey, CsatSurveys } from "./CsatSurveys.js"

const wantsHtml = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers.accept ?? "").toLowerCase().includes("text/html")

const respond = (request: HttpServerRequest.HttpServerRequest, view: CsatSurveyView, html: string, status: number) =>
  wantsHtml(request)
    ? Effect.succeed(
        HttpServerResponse.text(html, {
          status,
          contentType: "text/html; charset=utf-8",
          headers: { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'" }
        })
      )
    : Effect.flatMap(Schema.encode(CsatSurveyView)(view).pipe(Effect.orDie), (body) =>
        HttpServerResponse.json(body, { status }).pipe(Effect.orDie)
      )

/** Handlers of the `csat` group: the survey link's page and its answer. */
export const CsatLive = HttpApiBuilder.group(Api, "csat", (handlers) =>
  Effect.gen(function* () {
    const surveys = yield* CsatSurveys
    const queries = yield* TicketQueries
    const commands = yield* TicketCommands

    const surveyOf = (token: string) =>
      Effect.flatMap(surveys.find(token), (survey) =>
        survey === undefined
          ? Effect.fail(new NotFound({ detail: "This survey link is not valid." }))
          : Effect.succeed(survey)
      )

    const viewOf = (survey: CsatSurvey) =>
      Effect.gen(function* () {
        const view = yield* queries.view(survey.organizationId, survey.ticketId)
        if (view === undefined) return yield* new NotFound({ detail: "This survey link is not valid." })
        const response = view.csatResponse
        return {
          ticket: { public_id: view.publicId, subject: view.subject },
          organization: { name: survey.organizationName },
          answered: survey.answeredAt !== null || response !== null,
          csat_response: response
        } satisfies CsatSurveyView
      })

    return handlers
      .handleRaw("survey", ({ path, request }) =>
        Effect.gen(function* () {
          const view = yield* viewOf(yield* surveyOf(path.token))
          return yield* respond(request, view, surveyPage(view), 200)
        })
      )
      .handleRaw("answer", ({ path, request }) =>
        Effect.gen(function* () {
          const survey = yield* surveyOf(path.token)
          const answer = yield* RequestBody.decode(request, CsatAnswer)
          const already = new Conflict({ detail: "This survey was already answered; the first answer stands." })
          yield* commands
            .asSystem(survey.organizationId, survey.ticketId, (_, at) =>
              Effect.gen(function* () {
                if (!(yield* surveys.markAnswered(survey.id))) return yield* Effect.fail(already)
                return [
                  new RecordCsatResponse({
                    ticketId: survey.ticketId,
                    at,
                    actor: { role: "customer", user: null },
                    rating: answer.rating,
                    comment: answer.comment ?? ""
                  })
                ]
              })
            )
            .pipe(Effect.mapError((error) => (error instanceof Conflict ? error : toHttpError(error))))
          const view = yield* viewOf({ ...survey, answeredAt: new Date() })
          return yield* respond(request, view, answeredPage(view), 201)
        })
      )
  })
).pipe(Layer.provide([CsatSurveys.Default, TicketServicesLive]))
