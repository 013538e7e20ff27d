import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Wire } from "../Http/Errors.js"
import { CsatAnswer, CsatSurveyView } from "./CsatSurvey.js"

const TokenPath = Schema.Struct({ token: Schema.String })

const tokenNote =
  "The link of the survey e-mail is the credential (no `X-Service-Token`): an unknown or malformed token → 404. Browsers (`Accept: text/html`) get a small HTML page with a form instead of JSON."

/** CSAT surveys, answered by customers through the link a closed ticket's survey e-mail carries. */
export class CsatApi extends HttpApiGroup.make("csat")
  .add(
    HttpApiEndpoint.get("survey", "/csat/:token/")
      .setPath(TokenPath)
      .addSuccess(CsatSurveyView)
      .annotate(OpenApi.Summary, "Read a satisfaction survey")
      .annotate(OpenApi.Description, `Which ticket the survey is about and whether it was answered. ${tokenNote}`)
  )
  .add(
    HttpApiEndpoint.post("answer", "/csat/:token/")
      .setPath(TokenPath)
      .setPayload(CsatAnswer)
      .addSuccess(CsatSurveyView, { status: 201 })
      .addError(Wire.Conflict)
      .annotate(OpenApi.Summary, "Answer a satisfaction survey")
      .annotate(
        OpenApi.Description,
        `Records the rating (1 to 5) and comment (at most 2000 characters) in the ticket's \`csat_response\`. Once: a second answer → 409, and the first stands. ${tokenNote}`
      )
  )
  .annotate(OpenApi.Title, "CSAT surveys") {}
