import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"

/** Longest comment kept with a rating. */
export const MAX_CSAT_COMMENT = 2000

/** A CSAT survey as its link shows it to the customer. */
export const CsatSurveyView = Schema.Struct({
  ticket: Schema.Struct({ public_id: Schema.String, subject: Schema.String }),
  organization: Schema.Struct({ name: Schema.String }),
  answered: Schema.Boolean,
  csat_response: Schema.NullOr(Schema.Struct({ rating: Schema.Int, comment: Schema.String }))
}).annotations({ identifier: "CsatSurvey" })

/** A survey view. */
export type CsatSurveyView = typeof CsatSurveyView.Type

/** Body of `POST /csat/{token}/`: the rating (1 worst … 5 best) and an optional comment. */
export const CsatAnswer = Schema.Struct({
  rating: Fields.integer({ minimum: 1, maximum: 5, description: "1 (very dissatisfied) to 5 (very satisfied)." }),
  comment: Fields.optional(Fields.text({ maxLength: MAX_CSAT_COMMENT, allowBlank: true }))
}).annotations({ identifier: "CsatAnswer" })
