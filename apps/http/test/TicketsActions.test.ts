import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { get, patch, post, TestApp, TestAppLive } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

layer(TestAppLive, { excludeTestServices: true })("tickets: update, snooze, merge, enrichment", (it) => {
  it.effect("PATCH closes with a classification, reopens, and changes priority, assignee, tags and spam", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const admin = yield* Fixtures.member(org, "admin")
      const urgent = yield* Tickets.tag(org, "Urgent")
      const t = yield* Tickets.ticket(org)
      const noClass = yield* Tickets.updateTicket(org, t.id, { status: "closed" })
      Tickets.assertInvalid(noClass, "classification")
      const closed = yield* Tickets.updateTicket(org, t.id, { status: "closed", classification: "resolved" })
      assert.strictEqual(closed.status, 200, closed.text)
      assert.strictEqual(closed.body.status, "closed")
      assert.strictEqual(closed.body.classification, "resolved")
      assert.deepStrictEqual(yield* Tickets.readTicketBody(org, t.id), closed.body)
      const reopened = yield* Tickets.updateTicket(org, t.id, { status: "active" })
      assert.strictEqual(reopened.body.status, "active")
      assert.strictEqual(reopened.body.classification, "")
      const changed = yield* Tickets.updateTicket(org, t.id, {
        priority: "urgent",
        assignee_id: admin.userId,
        tags: [urgent.id],
        classification: "other"
      })
      assert.strictEqual(changed.status, 200, changed.text)
      assert.strictEqual(changed.body.priority, "urgent")
      assert.strictEqual(changed.body.assignee.id, admin.userId)
      assert.deepStrictEqual(changed.body.tags, [{ id: urgent.id, name: "Urgent", color: "" }])
      assert.strictEqual(changed.body.classification, "other")
      const spam = yield* Tickets.updateTicket(org, t.id, { is_spam: true, assignee_id: null, tags: [] })
      assert.strictEqual(spam.body.is_spam, true)
      assert.strictEqual(spam.body.assignee, null)
      assert.deepStrictEqual(spam.body.tags, [])
      const unchanged = yield* Tickets.updateTicket(org, t.id, {})
      assert.strictEqual(unchanged.status, 200)
      assert.deepStrictEqual(unchanged.body, spam.body)
    })
  )

  it.effect("PATCH refusals: all or nothing, with the field concerned", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const member = yield* Fixtures.member(org, "member")
      const t = yield* Tickets.ticket(org)
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ status: "active" }, "status"],
        [{ status: "open" }, "status"],
        [{ classification: "solved" }, "classification"],
        [{ priority: "p1" }, "priority"],
        [{ assignee_id: 987654 }, "assignee_id"],
        [{ tags: [987654] }, "tags"],
        [{ waiting_on: "nobody" }, "waiting_on"],
        [{ is_spam: "maybe" }, "is_spam"]
      ]
      for (const [body, field] of cases) {
        const response = yield* Tickets.updateTicket(org, t.id, { priority: "low", ...body })
        Tickets.assertInvalid(response, field, field)
      }
      // The refused PATCHes changed nothing (not even their valid priority).
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).priority, "not_set")
      // Members work tickets (decision 0412): their empty PATCH is an ordinary no-op.
      assert.strictEqual((yield* patch(Tickets.ticketPath(org, t.id), { token: member.token, json: {} })).status, 200)
    })
  )

  it.effect("PATCH waiting_on sets who must act next; the next customer-visible message sets it again", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket()
      assert.strictEqual(t.waiting_on, "customer")
      const cleared = yield* Tickets.updateTicket(org, t.id, { waiting_on: "" })
      assert.strictEqual(cleared.status, 200, cleared.text)
      assert.strictEqual(cleared.body.waiting_on, "")
      const listed = yield* get(`${org.tickets}?waiting_on=`, { token: org.ownerToken })
      assert.deepStrictEqual(Tickets.resultIds(listed.body), [t.id])
      const before = Date.now()
      const waiting = yield* Tickets.updateTicket(org, t.id, { waiting_on: "customer" })
      assert.strictEqual(waiting.body.waiting_on, "customer")
      // Set by hand to the customer, the inactivity clock starts now.
      const [row] = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{
            since: Date | null
          }>`SELECT waiting_on_customer_since AS since FROM hd_tickets WHERE ticket_id = ${t.id}`
      ).pipe(Effect.orDie)
      assert.isAtLeast(row!.since!.getTime(), before - 1000)
      const unchanged = yield* Tickets.updateTicket(org, t.id, { waiting_on: "customer" })
      assert.strictEqual(unchanged.status, 200)
      yield* Tickets.customerReply(org, t.id, Tickets.ENGLISH)
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).waiting_on, "associate")
    })
  )

  it.effect("snooze until a future moment, unsnooze manually; a customer's reply unsnoozes with customer_reply", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket()
      const until = Tickets.inAnHour()
      const snoozed = yield* Tickets.snoozeTicket(org, t.id, until)
      assert.strictEqual(snoozed.status, 200, snoozed.text)
      assert.strictEqual(snoozed.body.snoozed_until, until)
      assert.strictEqual(snoozed.body.snoozed_by.id, org.ownerId)
      assert.strictEqual(snoozed.body.last_unsnooze_reason, null)
      const unsnoozed = yield* Tickets.unsnoozeTicket(org, t.id)
      assert.strictEqual(unsnoozed.status, 200)
      assert.strictEqual(unsnoozed.body.snoozed_until, null)
      assert.strictEqual(unsnoozed.body.last_unsnooze_reason, "manual")
      assert.isString(unsnoozed.body.last_snooze_ended_at)
      const again = yield* Tickets.unsnoozeTicket(org, t.id)
      Tickets.assertInvalid(again, "non_field_errors")

      yield* Tickets.snoozeTicket(org, t.id, Tickets.inAnHour())
      yield* Tickets.customerReply(org, t.id, "Hello?")
      const woken = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(woken.snoozed_until, null)
      assert.strictEqual(woken.last_unsnooze_reason, "customer_reply")

      const past = yield* post(Tickets.ticketPath(org, t.id, "snooze/"), {
        token: org.ownerToken,
        json: { until: "2020-01-01T00:00:00Z" }
      })
      Tickets.assertInvalid(past, "until")
      const bad = yield* Tickets.snoozeTicket(org, t.id, "tomorrow")
      Tickets.assertInvalid(bad, "until")
      const missing = yield* post(Tickets.ticketPath(org, t.id, "snooze/"), { token: org.ownerToken, json: {} })
      assert.deepStrictEqual(missing.body, { until: ["This field is required."] })
      yield* Tickets.updateTicket(org, t.id, { status: "closed", classification: "resolved" })
      const closed = yield* post(Tickets.ticketPath(org, t.id, "snooze/"), {
        token: org.ownerToken,
        json: { until: Tickets.inAnHour() }
      })
      assert.strictEqual(closed.status, 400)
    })
  )

  it.effect("merge: the source answers reads with merged_into, refuses writes naming the survivor", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const { baseUrl } = yield* TestApp
      const photo = yield* Tickets.upload(org, "photo.txt", "the opening request's file")
      const source = yield* Tickets.ticket(org, {
        subject: "Duplicate",
        description_html: `<p>${Tickets.ENGLISH}</p>`,
        attachment_ids: [photo.id]
      })
      const target = yield* Tickets.ticket(org, { subject: "Original" })
      const carried = (yield* Tickets.postMessage(org, source.id, { content: "On the duplicate" })).body
      const merged = yield* post(Tickets.ticketPath(org, source.id, "merge/"), {
        token: org.ownerToken,
        json: { into: target.id }
      })
      assert.strictEqual(merged.status, 200, merged.text)
      assert.deepStrictEqual(merged.body.merged_into, {
        id: target.id,
        public_id: target.public_id,
        subject: "Original"
      })
      assert.strictEqual(merged.body.merged_by.id, org.ownerId)
      assert.isString(merged.body.merged_at)
      // Signed links carry their expiry (per second): compare everything else.
      const unsigned = (t: { attachments: ReadonlyArray<Record<string, unknown>> }) => ({
        ...t,
        attachments: t.attachments.map(({ download_url: _, ...a }) => a)
      })
      assert.deepStrictEqual(unsigned(yield* Tickets.readTicketBody(org, source.id)), unsigned(merged.body))

      // The source's opening request comes first (its time is the source's creation), then its messages.
      const moved = yield* get(Tickets.ticketPath(org, target.id, "messages/"), { token: org.ownerToken })
      assert.strictEqual(moved.body.count, 2)
      const [opening, movedReply] = moved.body.results
      const fromSource = { id: source.id, public_id: source.public_id, subject: "Duplicate" }
      assert.strictEqual(movedReply.id, carried.id)
      assert.deepStrictEqual(movedReply.merged_from_ticket, fromSource)
      assert.notStrictEqual(opening.id, carried.id)
      assert.deepStrictEqual(opening.merged_from_ticket, fromSource)
      assert.strictEqual(opening.content, Tickets.ENGLISH)
      assert.strictEqual(opening.content_html, `<p>${Tickets.ENGLISH}</p>`)
      assert.strictEqual(opening.created_at, source.created_at)
      assert.strictEqual(opening.role, "associate")
      assert.strictEqual(opening.author.id, org.ownerId)
      assert.isTrue(opening.is_visible_to_customer)
      assert.isNull(opening.delivery_status)
      assert.deepStrictEqual(
        opening.attachments.map((a: { id: string; name: string }) => [a.id, a.name]),
        [[photo.id, "photo.txt"]]
      )
      const file = yield* Effect.promise(() => fetch(opening.attachments[0].download_url).then((r) => r.text()))
      assert.strictEqual(file, "the opening request's file")
      const survivorView = yield* Tickets.readTicketBody(org, target.id)
      assert.isTrue(survivorView.has_attachments)
      assert.strictEqual(
        (yield* get(Tickets.ticketPath(org, target.id, `messages/${opening.id}/`), { token: org.ownerToken })).status,
        200
      )

      for (const write of [
        Tickets.postMessage(org, source.id, { content: "late" }),
        Tickets.snoozeTicket(org, source.id, Tickets.inAnHour()),
        patch(Tickets.ticketPath(org, source.id), { token: org.ownerToken, json: { priority: "high" } })
      ]) {
        const refused = yield* write
        assert.strictEqual(refused.status, 400, refused.text)
        assert.include(refused.body.non_field_errors[0], `ticket ${target.public_id}`)
      }

      const reply = yield* Tickets.customerReply(org, source.id, "Customer again")
      assert.strictEqual(reply.status, 201, reply.text)
      assert.strictEqual(
        reply.headers.get("location"),
        `${baseUrl}${Tickets.ticketPath(org, target.id, `messages/${reply.body.id}/`)}`
      )
      const survivor = yield* get(Tickets.ticketPath(org, target.id, "messages/"), { token: org.ownerToken })
      assert.strictEqual(survivor.body.count, 3)

      // Not listed any more.
      const list = yield* get(org.tickets, { token: org.ownerToken })
      assert.notInclude(Tickets.resultIds(list.body), source.id)
    })
  )

  it.effect("merge refusals: into itself, into another organization's ticket, into a merged ticket, again", () =>
    Effect.gen(function* () {
      const [org, other] = yield* Tickets.organizationAndAnother
      const a = yield* Tickets.ticket(org)
      const b = yield* Tickets.ticket(org)
      const c = yield* Tickets.ticket(org)
      const foreign = yield* Tickets.ticket(other)
      const merge = (id: number, into: unknown) =>
        post(Tickets.ticketPath(org, id, "merge/"), { token: org.ownerToken, json: { into } })
      for (const into of [a.id, foreign.id, 987654, "x"]) {
        const refused = yield* merge(a.id, into)
        Tickets.assertInvalid(refused, "into")
      }
      assert.strictEqual((yield* merge(b.id, c.id)).status, 200)
      const intoMerged = yield* merge(a.id, b.id)
      assert.strictEqual(intoMerged.status, 400)
      assert.include(intoMerged.body.into[0], `ticket ${c.public_id}`)
      const twice = yield* merge(b.id, a.id)
      Tickets.assertInvalid(twice, "non_field_errors")
    })
  )

  it.effect("enrichment: integration tokens only; summary, sentiment, transcript (with language) and auto-tags", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const vip = yield* Tickets.tag(org, "VIP")
      const refund = yield* Tickets.tag(org, "Refund")
      const audio = yield* Tickets.ticket(org, { kind: "audio", description: "", tags: [vip.id] })
      const path = Tickets.ticketPath(org, audio.id, "enrichment/")
      assert.strictEqual((yield* post(path, { token: org.ownerToken, json: { summary: "x" } })).status, 403)
      const enriched = yield* post(path, {
        token: org.integration,
        json: {
          summary: "Customer asks about a lost parcel.",
          sentiment_analysis_class: "negative",
          transcript: Tickets.FRENCH,
          tags: [refund.id, vip.id]
        }
      })
      assert.strictEqual(enriched.status, 200, enriched.text)
      const e = enriched.body
      assert.strictEqual(e.summary, "Customer asks about a lost parcel.")
      assert.strictEqual(e.sentiment_analysis_class, "negative")
      assert.strictEqual(e.description, Tickets.FRENCH)
      assert.strictEqual(e.description_html, "")
      assert.strictEqual(e.language, "fr")
      assert.deepStrictEqual(
        e.tags.map((t: { id: number }) => t.id),
        [vip.id, refund.id]
      )
      const text = yield* Tickets.ticket(org, { description: Tickets.ENGLISH })
      const notAudio = yield* post(Tickets.ticketPath(org, text.id, "enrichment/"), {
        token: org.integration,
        json: { transcript: "x" }
      })
      Tickets.assertInvalid(notAudio, "transcript")
      const badSentiment = yield* post(Tickets.ticketPath(org, text.id, "enrichment/"), {
        token: org.integration,
        json: { sentiment_analysis_class: "pending" }
      })
      Tickets.assertInvalid(badSentiment, "sentiment_analysis_class")
      const language = yield* post(Tickets.ticketPath(org, text.id, "enrichment/"), {
        token: org.integration,
        json: { language: "de" }
      })
      assert.strictEqual(language.body.language, "de")
      const badLanguage = yield* post(Tickets.ticketPath(org, text.id, "enrichment/"), {
        token: org.integration,
        json: { language: "deu" }
      })
      Tickets.assertInvalid(badLanguage, "language")
    })
  )
})
