import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { get, patch, post, request, TestAppLive } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

/** An organization that asks for CSAT surveys. */
const organization = Effect.gen(function* () {
  const org = yield* Tickets.organization
  const enabled = yield* patch(org.path, { token: org.ownerToken, json: { enable_csat: true } })
  assert.strictEqual(enabled.status, 200, enabled.text)
  return org
})

const close = (org: Tickets.TicketOrg, id: number, classification = "resolved") =>
  Effect.tap(Tickets.updateTicket(org, id, { status: "closed", classification }), (r) =>
    assert.strictEqual(r.status, 200, r.text)
  )

/** The survey rows queued for a ticket, and the path of the survey link the first one carries. */
const surveysOf = (id: number) =>
  Effect.map(Tickets.outbox(id), (rows) => {
    const surveys = rows.filter((row) => row.kind === "csat_survey")
    const link =
      surveys[0] === undefined
        ? undefined
        : /(https?:\/\/\S+\/csat\/hd_csat_[\w-]{43}\/)/.exec(String(surveys[0].payload.text))?.[1]
    return { surveys, path: link === undefined ? undefined : new URL(link).pathname }
  })

/** A closed ticket with its survey link's path. */
const closedWithSurvey = (org: Tickets.TicketOrg) =>
  Effect.gen(function* () {
    const created = yield* Tickets.ticket(org)
    yield* close(org, created.id)
    const { surveys, path } = yield* surveysOf(created.id)
    assert.strictEqual(surveys.length, 1)
    assert.isDefined(path)
    return { id: created.id as number, path: path! }
  })

layer(TestAppLive, { excludeTestServices: true })("CSAT surveys", (it) => {
  it.effect(
    "given enable_csat, closing a ticket mails a survey link; the customer's answer lands in csat_response",
    () =>
      Effect.gen(function* () {
        const org = yield* organization
        const created = yield* Tickets.ticket(org, { customer_name: "Jane Roe" })
        yield* close(org, created.id)
        const { surveys, path } = yield* surveysOf(created.id)
        assert.strictEqual(surveys.length, 1)
        const mail = surveys[0]!
        assert.strictEqual(mail.payload.to, "jane@example.com")
        assert.deepStrictEqual([mail.payload.cc, mail.payload.bcc], [[], []])
        assert.match(String(mail.payload.subject), /^How did we do\? Parcel missing$/)
        assert.match(String(mail.payload.html), /<a href="http[^"]+\/csat\/hd_csat_/)

        const before = yield* get(path!)
        assert.strictEqual(before.status, 200, before.text)
        assert.deepStrictEqual(before.body, {
          ticket: { public_id: created.public_id, subject: "Parcel missing" },
          organization: { name: org.organization.name },
          answered: false,
          csat_response: null
        })

        const answered = yield* post(path!, { json: { rating: 4, comment: "Quick and kind." } })
        assert.strictEqual(answered.status, 201, answered.text)
        assert.deepStrictEqual(answered.body.csat_response, { rating: 4, comment: "Quick and kind." })
        assert.isTrue(answered.body.answered)
        const read = yield* Tickets.readTicket(org, created.id)
        assert.deepStrictEqual(read.body.csat_response, { rating: 4, comment: "Quick and kind." })
      })
  )

  it.effect("a second answer is refused with 409 and the first stands", () =>
    Effect.gen(function* () {
      const org = yield* organization
      const { id, path } = yield* closedWithSurvey(org)
      assert.strictEqual((yield* post(path, { json: { rating: 2 } })).status, 201)
      const again = yield* post(path, { json: { rating: 5, comment: "Changed my mind" } })
      assert.strictEqual(again.status, 409)
      assert.match(again.body.detail, /already answered/)
      assert.deepStrictEqual((yield* Tickets.readTicketBody(org, id)).csat_response, { rating: 2, comment: "" })
    })
  )

  it.effect("two answers at once: exactly one is recorded", () =>
    Effect.gen(function* () {
      const org = yield* organization
      const { id, path } = yield* closedWithSurvey(org)
      const answers = yield* Effect.all(
        [1, 2, 3, 4, 5].map((rating) => post(path, { json: { rating } })),
        { concurrency: "unbounded" }
      )
      const statuses = answers.map((a) => a.status).sort()
      assert.deepStrictEqual(statuses, [201, 409, 409, 409, 409])
      const winner = answers.find((a) => a.status === 201)!.body.csat_response
      assert.deepStrictEqual((yield* Tickets.readTicketBody(org, id)).csat_response, winner)
    })
  )

  it.effect("ratings 1 and 5 are accepted; 0, 6, 4.5 and a missing rating are field errors that record nothing", () =>
    Effect.gen(function* () {
      const org = yield* organization
      for (const rating of [0, 6, 4.5, "five", undefined]) {
        const { id, path } = yield* closedWithSurvey(org)
        const refused = yield* post(path, { json: rating === undefined ? {} : { rating } })
        Tickets.assertInvalid(refused, "rating", `rating ${rating}`)
        assert.strictEqual((yield* Tickets.readTicketBody(org, id)).csat_response, null)
      }
      for (const rating of [1, 5]) {
        const { path } = yield* closedWithSurvey(org)
        assert.strictEqual((yield* post(path, { json: { rating } })).status, 201)
      }
    })
  )

  it.effect("a comment of 2000 characters is kept; 2001 is refused", () =>
    Effect.gen(function* () {
      const org = yield* organization
      const long = yield* closedWithSurvey(org)
      const refused = yield* post(long.path, { json: { rating: 3, comment: "x".repeat(2001) } })
      assert.strictEqual(refused.status, 400)
      assert.deepStrictEqual(refused.body.comment, ["Ensure this field has no more than 2000 characters."])
      const kept = yield* post(long.path, { json: { rating: 3, comment: "x".repeat(2000) } })
      assert.strictEqual(kept.status, 201)
      assert.strictEqual(kept.body.csat_response.comment.length, 2000)
    })
  )

  it.effect(
    "no survey without enable_csat, for a ticket closed as invalid or as spam, or a second time after reopening",
    () =>
      Effect.gen(function* () {
        const quiet = yield* Tickets.organization
        const plain = yield* Tickets.ticket(quiet)
        yield* close(quiet, plain.id)
        assert.deepStrictEqual((yield* surveysOf(plain.id)).surveys, [])

        const org = yield* organization
        const invalid = yield* Tickets.ticket(org)
        yield* close(org, invalid.id, "invalid")
        assert.deepStrictEqual((yield* surveysOf(invalid.id)).surveys, [])

        const spam = yield* Tickets.ticket(org)
        yield* Tickets.updateTicket(org, spam.id, { is_spam: true })
        yield* close(org, spam.id)
        assert.deepStrictEqual((yield* surveysOf(spam.id)).surveys, [])

        const { id } = yield* closedWithSurvey(org)
        assert.strictEqual((yield* Tickets.updateTicket(org, id, { status: "active" })).status, 200)
        yield* close(org, id)
        assert.strictEqual((yield* surveysOf(id)).surveys.length, 1)
      })
  )

  it.effect("an unknown or malformed survey link is 404, with no token header needed for a real one", () =>
    Effect.gen(function* () {
      const unknown = `/csat/hd_csat_${"A".repeat(43)}/`
      assert.strictEqual((yield* get(unknown)).status, 404)
      assert.strictEqual((yield* post(unknown, { json: { rating: 5 } })).status, 404)
      assert.strictEqual((yield* get("/csat/not-a-token/")).status, 404)
    })
  )

  it.effect("a browser gets a form page, and posting the form answers the survey", () =>
    Effect.gen(function* () {
      const org = yield* organization
      const { id, path } = yield* closedWithSurvey(org)
      const page = yield* request("GET", path, { headers: { accept: "text/html,application/xhtml+xml" } })
      assert.strictEqual(page.status, 200)
      assert.match(page.headers.get("content-type") ?? "", /^text\/html/)
      assert.match(page.text, /<form method="post">/)
      assert.match(page.text, /name="rating" value="5"/)
      const sent = yield* request("POST", path, {
        headers: { accept: "text/html" },
        form: { rating: "5", comment: "<b>Great</b>" }
      })
      assert.strictEqual(sent.status, 201, sent.text)
      assert.match(sent.text, /Thank you!/)
      assert.deepStrictEqual((yield* Tickets.readTicketBody(org, id)).csat_response, {
        rating: 5,
        comment: "<b>Great</b>"
      })
      const after = yield* request("GET", path, { headers: { accept: "text/html" } })
      assert.notMatch(after.text, /<form/)
    })
  )

  it.effect("the survey endpoints are in /openapi.json without a token requirement", () =>
    Effect.gen(function* () {
      const spec = (yield* get("/openapi.json")).body
      const operations = spec.paths["/csat/{token}/"]
      assert.deepStrictEqual(Object.keys(operations).sort(), ["get", "post"])
      assert.property(operations.post.responses, "409")
    })
  )
})
