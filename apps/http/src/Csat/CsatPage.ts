import { escapeHtml } from "../Http/Html.js"
import type { CsatSurveyView } from "./CsatSurvey.js"

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}fieldset{border:0;padding:0}label{margin-right:1rem}textarea{width:100%;min-height:6rem}</style></head><body>${body}</body></html>`

const LABELS = ["", "Very dissatisfied", "Dissatisfied", "Neutral", "Satisfied", "Very satisfied"]

/** The survey as a page with a form that posts the answer back to the same address. */
export const surveyPage = (survey: CsatSurveyView): string => {
  const about = `<p>${escapeHtml(survey.organization.name)} · request #${escapeHtml(survey.ticket.public_id)}: “${escapeHtml(survey.ticket.subject)}”</p>`
  if (survey.answered) return answeredPage(survey)
  const choices = [5, 4, 3, 2, 1]
    .map((r) => `<label><input type="radio" name="rating" value="${r}" required> ${r} · ${LABELS[r]}</label><br>`)
    .join("")
  return page(
    "How did we do?",
    `<h1>How did we do?</h1>${about}<form method="post"><fieldset>${choices}</fieldset><p><label for="comment">Anything to add? (optional)</label><br><textarea id="comment" name="comment" maxlength="2000"></textarea></p><button type="submit">Send</button></form>`
  )
}

/** The page after an answer (or for a survey answered before). */
export const answeredPage = (survey: CsatSurveyView): string =>
  page(
    "Thank you",
    `<h1>Thank you!</h1><p>Your answer for request #${escapeHtml(survey.ticket.public_id)} was recorded${
      survey.csat_response === null
        ? ""
        : `: ${survey.csat_response.rating} · ${LABELS[survey.csat_response.rating] ?? ""}`
    }.</p>`
  )
