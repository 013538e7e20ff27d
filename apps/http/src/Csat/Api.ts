import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as Endpoint from "../Http/Endpoint.js"
import { Wire } from "../Http/Errors.js"
import { CsatAnswer, CsatSurveyView } from "./CsatSurvey.js"

const TokenPath = Schema.Struct({ token: Schema.String })

const tokenNote =
  "The link of the survey e-mail is the credential (no `X-Service-Token`): an unknown or malformed token → 404. Browsers (`Accept: text/html`) get a small HTML page with a form instead of JSON."

/** CSAT surveys, answered by customers through the link a closed ticket's survey e-mail carries. */
export class CsatApi extends HttpApiGroup.make("csat")
  .add(
    Endpoint.get("survey", "/csat/:token/", {
      summary: "Read a satisfaction survey",
      description: `Which ticket the survey is about and whether it was answered. ${tokenNote}`
    })
      .setPath(TokenPath)
      .addSuccess(CsatSurveyView)
  )
  .add(
    Endpoint.post("answer", "/csat/:token/", {
      summary: "Answer a satisfaction survey",
      description: `Records the rating (1 to 5) and comment (at most 2000 characters) in the ticket's \`csat_response\`. Once: a second answer → 409, and the first stands. ${tokenNote}`
    })
      .setPath(TokenPath)
      .setPayload(CsatAnswer)
      .addSuccess(CsatSurveyView, { status: 201 })
      .addError(Wire.Conflict)
  )
  .annotate(OpenApi.Title, "CSAT surveys") {}
