import { readFileSync } from "node:fs"
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer } from "effect"
import { PostgresEventStore } from "../src/EventStore/PostgresEventStore.js"
import { verifySignature } from "../src/Webhooks/VerifySignature.js"
import { MAX_WEBHOOK_URL_LENGTH } from "../src/Webhooks/Webhook.js"
import { deliveryRounds } from "../src/Webhooks/WebhookDelivery.js"
import { fanOutRound } from "../src/Webhooks/WebhookFanOut.js"
import type { WebhookOptions } from "../src/Webhooks/WebhookOptions.js"
import { webhookWorkerLayer } from "../src/Webhooks/WebhookWorker.js"
import * as Fixtures from "./support/Fixtures.js"
import { replicaPool } from "./support/Replicas.js"
import { del, get, patch, post, testAppLive, testAppWith } from "./support/TestApp.js"
import { usesRealPostgres } from "./support/TestDatabase.js"
import { organization, postMessage, type TicketOrg, ticket, updateTicket } from "./TicketsSupport.js"
import { databaseUrl, eventually, type Received, receiver, testWebhookOptions } from "./WebhooksSupport.js"

/**
 * The app with private addresses allowed (the receivers are on 127.0.0.1). On PGlite one connection: its socket
 * server can mix up the exchanges of concurrent connections, and the worker runs beside the requests.
 */
const AppLive = testAppLive({}, { connections: usesRealPostgres ? 20 : 1 }).pipe(
  Layer.provide(
    Layer.setConfigProvider(
      ConfigProvider.fromMap(new Map([["WEBHOOKS_ALLOW_PRIVATE", "true"]])).pipe(
        ConfigProvider.orElse(() => ConfigProvider.fromEnv())
      )
    )
  )
)

/** Creates a webhook, deleted again when the test ends (so later tests' workers do not retry its closed receiver). */
const createWebhook = (org: TicketOrg, json: Record<string, unknown>) =>
  Effect.gen(function* () {
    const response = yield* post(`${org.path}webhooks/`, { token: org.ownerToken, json })
    assert.strictEqual(response.status, 201, response.text)
    const created = response.body as { id: number; secret: string; url: string }
    yield* Effect.addFinalizer(() => del(`${org.path}webhooks/${created.id}/`, { token: org.ownerToken }))
    return created
  })

/** Runs the webhook worker for the rest of the test's scope. */
const worker = (options: WebhookOptions = testWebhookOptions()) => Layer.build(webhookWorkerLayer(options))

/**
 * Runs the webhook worker (with `options`), and gives a new organization a webhook (with `webhook`'s fields) to a new
 * receiver that answers `respond`.
 */
const hookedOrganization = (
  settings: {
    readonly respond?: Parameters<typeof receiver>[0]
    readonly webhook?: Record<string, unknown>
    readonly options?: WebhookOptions
  } = {}
) =>
  Effect.gen(function* () {
    yield* worker(settings.options)
    const org = yield* organization
    const hook = yield* receiver(settings.respond)
    const created = yield* createWebhook(org, { url: hook.url, ...settings.webhook })
    return { org, hook, created }
  })

const bodyOf = (received: Received) =>
  JSON.parse(received.body) as {
    id: string
    type: string
    ticket_id: number
    position: number
    organization_id: string
  }

/** The positions of the ticket's events in the order they were received, checked to be ascending. */
const positionsInOrder = (received: ReadonlyArray<Received>, ticketId: number) => {
  const positions = received
    .map(bodyOf)
    .filter((body) => body.ticket_id === ticketId)
    .map((body) => body.position)
  assert.deepStrictEqual(
    positions,
    [...positions].sort((a, b) => a - b),
    `ticket ${ticketId} in order`
  )
  return positions
}

const hookPath = (org: TicketOrg, id: number, rest = "") => `${org.path}webhooks/${id}/${rest}`

describe("webhooks", () => {
  it("docs/webhooks.md shows the verification code these tests use, verbatim", () => {
    const guide = readFileSync(new URL("../../../docs/webhooks.md", import.meta.url), "utf8")
    const code = readFileSync(new URL("../src/Webhooks/VerifySignature.ts", import.meta.url), "utf8").trimEnd()
    assert.include(guide, `\`\`\`ts\n${code}\n\`\`\``)
  })

  layer(AppLive, { excludeTestServices: true, timeout: "120 seconds" })("API and delivery", (it) => {
    it.scoped("CRUD: the secret is shown on create and rotate only; paged list; members and outsiders refused", () =>
      Effect.gen(function* () {
        const org = yield* organization
        const response = yield* post(`${org.path}webhooks/`, {
          token: org.integration,
          json: { url: "https://hooks.example.com/in", event_types: ["TicketClosed", "TicketCreated"] }
        })
        assert.strictEqual(response.status, 201, response.text)
        const hook = response.body
        assert.match(hook.secret, /^whsec_[A-Za-z0-9_-]{43}$/)
        assert.deepStrictEqual(hook.event_types, ["TicketClosed", "TicketCreated"])
        assert.isTrue(hook.active)
        assert.strictEqual(hook.disabled_reason, "")
        assert.match(response.headers.get("location")!, new RegExp(`/webhooks/${hook.id}/$`))

        const read = yield* get(hookPath(org, hook.id), { token: org.ownerToken })
        assert.strictEqual(read.status, 200)
        assert.notProperty(read.body, "secret")
        assert.notInclude(read.text, hook.secret)

        yield* createWebhook(org, { url: "https://hooks.example.com/two" })
        const page = yield* get(`${org.path}webhooks/?page_size=1`, { token: org.ownerToken })
        assert.strictEqual(page.body.count, 2)
        assert.strictEqual(page.body.results.length, 1)
        assert.isNotNull(page.body.next)

        const changed = yield* patch(hookPath(org, hook.id), {
          token: org.ownerToken,
          json: { url: "https://hooks.example.com/moved", event_types: [] }
        })
        assert.strictEqual(changed.status, 200, changed.text)
        assert.strictEqual(changed.body.url, "https://hooks.example.com/moved")
        assert.deepStrictEqual(changed.body.event_types, [])

        const rotated = yield* post(hookPath(org, hook.id, "rotate-secret/"), { token: org.ownerToken })
        assert.strictEqual(rotated.status, 200, rotated.text)
        assert.notStrictEqual(rotated.body.secret, hook.secret)
        assert.isNotNull(rotated.body.secret_rotated_at)

        const member = yield* Fixtures.member(org, "member")
        assert.strictEqual((yield* get(`${org.path}webhooks/`, { token: member.token })).status, 403)
        assert.strictEqual((yield* get(hookPath(org, hook.id), { token: member.token })).status, 403)
        const other = yield* organization
        assert.strictEqual((yield* get(hookPath(other, hook.id), { token: other.ownerToken })).status, 404)

        assert.strictEqual((yield* del(hookPath(org, hook.id), { token: org.ownerToken })).status, 204)
        assert.strictEqual((yield* get(hookPath(org, hook.id), { token: org.ownerToken })).status, 404)
      })
    )

    it.scoped("bad input is a 400 on its field, at each limit's edge", () =>
      Effect.gen(function* () {
        const org = yield* organization
        const create = (json: Record<string, unknown>) => post(`${org.path}webhooks/`, { token: org.ownerToken, json })
        const base = "https://hooks.example.com/"
        const longest = base + "a".repeat(MAX_WEBHOOK_URL_LENGTH - base.length)
        assert.strictEqual((yield* create({ url: longest })).status, 201)
        const tooLong = yield* create({ url: `${longest}a` })
        assert.strictEqual(tooLong.status, 400)
        assert.property(tooLong.body, "url")
        for (const url of ["ftp://hooks.example.com/", "not a url", "", "https://user:pw@hooks.example.com/"]) {
          const refused = yield* create({ url })
          assert.strictEqual(refused.status, 400, url)
          assert.property(refused.body, "url", url)
        }
        const unknownType = yield* create({ url: base, event_types: ["TicketExploded"] })
        assert.strictEqual(unknownType.status, 400)
        assert.property(unknownType.body, "event_types")
        assert.strictEqual((yield* create({ url: base, event_types: Array(50).fill("TicketClosed") })).status, 201)
        assert.strictEqual((yield* create({ url: base, event_types: Array(51).fill("TicketClosed") })).status, 400)
        assert.strictEqual((yield* create({})).status, 400)
      })
    )

    it.scoped(
      "a receiver verifies every signature with the guide's code, gets each event once, a ticket's events in order",
      () =>
        Effect.gen(function* () {
          const { org, hook, created } = yield* hookedOrganization()
          const first = yield* ticket(org)
          const second = yield* ticket(org)
          yield* postMessage(org, first.id, { content: "We are on it." })
          yield* updateTicket(org, first.id, { priority: "high" })
          yield* updateTicket(org, second.id, { priority: "low" })
          // TicketCreated, MessageAdded (and its side events), priority changes: at least 5.
          yield* eventually(
            "the deliveries",
            Effect.sync(() => (hook.received.length >= 5 ? true : undefined))
          )
          // Let a late duplicate show itself if there were one.
          yield* Effect.sleep(Duration.millis(300))
          const ids = hook.received.map((r) => bodyOf(r).id)
          assert.strictEqual(new Set(ids).size, ids.length, "each event once")
          for (const r of hook.received) {
            const signature = r.headers["x-helpdesk-signature"] as string
            assert.isNull(verifySignature(signature, r.body, created.secret))
            assert.strictEqual(r.headers["x-helpdesk-event-id"], bodyOf(r).id)
            assert.strictEqual(r.headers["content-type"], "application/json")
            // Tampering or the wrong secret is caught; so is an old timestamp.
            assert.strictEqual(verifySignature(signature, `${r.body} `, created.secret), "no matching signature")
            assert.strictEqual(verifySignature(signature, r.body, "whsec_other"), "no matching signature")
            assert.strictEqual(
              verifySignature(signature, r.body, created.secret, 300, new Date(Date.now() + 301_000)),
              "timestamp outside tolerance"
            )
          }
          for (const t of [first, second]) assert.strictEqual(positionsInOrder(hook.received, t.id)[0], 1)
          const opening = JSON.parse(hook.received[0]!.body)
          assert.strictEqual(opening.type, "TicketCreated")
          assert.strictEqual(opening.organization_id, org.organization.public_id)
          assert.strictEqual(opening.ticket_id, first.id)
          assert.strictEqual(opening.position, 1)
          assert.strictEqual(opening.data.subject, "Parcel missing")
          assert.notProperty(opening.data, "organization_id")
          const log = yield* eventually(
            "every attempt recorded",
            Effect.map(get(hookPath(org, created.id, "deliveries/"), { token: org.ownerToken }), (r) =>
              r.body.count === hook.received.length ? r : undefined
            )
          )
          for (const attempt of log.body.results) {
            assert.isTrue(attempt.succeeded)
            assert.strictEqual(attempt.status_code, 200)
            assert.isAtLeast(attempt.latency_ms, 0)
          }
        })
    )

    it.scoped("only subscribed types are sent; a 500 is retried until the receiver answers 2xx", () =>
      Effect.gen(function* () {
        const { org, hook, created } = yield* hookedOrganization({
          respond: ({ index }) => (index < 2 ? 500 : 204),
          webhook: { event_types: ["TicketPriorityChanged"] }
        })
        const t = yield* ticket(org)
        yield* updateTicket(org, t.id, { priority: "urgent" })
        yield* eventually(
          "a success",
          Effect.sync(() => (hook.received.some((r) => r.status === 204) ? true : undefined))
        )
        assert.deepStrictEqual(
          hook.received.map((r) => r.status),
          [500, 500, 204]
        )
        assert.strictEqual(new Set(hook.received.map((r) => bodyOf(r).id)).size, 1, "the same event each time")
        assert.strictEqual(bodyOf(hook.received[0]!).type, "TicketPriorityChanged")
        const signatures = hook.received.map((r) => r.headers["x-helpdesk-signature"])
        for (const r of hook.received)
          assert.isNull(verifySignature(r.headers["x-helpdesk-signature"] as string, r.body, created.secret))
        assert.isAtLeast(new Set(signatures).size, 1)
        // The attempt is recorded just after the receiver answered.
        const log = yield* eventually(
          "three recorded attempts",
          Effect.map(get(hookPath(org, created.id, "deliveries/"), { token: org.ownerToken }), (r) =>
            r.body.count === 3 ? r : undefined
          )
        )
        assert.deepStrictEqual(
          log.body.results.map((a: { attempt: number; status_code: number; succeeded: boolean }) => [
            a.attempt,
            a.status_code,
            a.succeeded
          ]),
          [
            [3, 204, true],
            [2, 500, false],
            [1, 500, false]
          ]
        )
        assert.strictEqual(log.body.results[1].error, "HTTP 500")
      })
    )

    it.scoped("a later event of the same ticket waits while an earlier one is retried", () =>
      Effect.gen(function* () {
        const { org, hook } = yield* hookedOrganization({ respond: ({ index }) => (index < 3 ? 503 : 200) })
        const t = yield* ticket(org)
        yield* updateTicket(org, t.id, { priority: "high" })
        yield* updateTicket(org, t.id, { priority: "low" })
        yield* eventually(
          "all three events",
          Effect.sync(() => (hook.received.filter((r) => r.status === 200).length >= 3 ? true : undefined))
        )
        const sequences = hook.received.map((r) => bodyOf(r).position)
        // The first three attempts are all of event 1; 2 and 3 only after it succeeded.
        assert.deepStrictEqual(sequences.slice(0, 4), [1, 1, 1, 1])
        // Each event once on success, in the ticket's order (other features may add events after the three).
        const delivered = hook.received.filter((r) => r.status === 200).map((r) => bodyOf(r).position)
        assert.deepStrictEqual(delivered.slice(0, 3), [1, 2, 3])
        assert.deepStrictEqual(
          delivered,
          delivered.map((_, i) => i + 1)
        )
      })
    )

    it.scoped("after the webhook is deleted nothing more is sent to it", () =>
      Effect.gen(function* () {
        yield* worker()
        const org = yield* organization
        const removed = yield* receiver()
        const sentinel = yield* receiver()
        const doomed = yield* createWebhook(org, { url: removed.url })
        yield* createWebhook(org, { url: sentinel.url })
        const before = yield* ticket(org)
        yield* eventually(
          "the first delivery",
          Effect.sync(() => (removed.received.length >= 1 ? true : undefined))
        )
        assert.strictEqual(bodyOf(removed.received[0]!).ticket_id, before.id)
        assert.strictEqual((yield* del(hookPath(org, doomed.id), { token: org.ownerToken })).status, 204)
        const countAtDelete = removed.received.length
        const after = yield* ticket(org)
        yield* eventually(
          "the sentinel to get the later ticket",
          Effect.sync(() => (sentinel.received.some((r) => bodyOf(r).ticket_id === after.id) ? true : undefined))
        )
        yield* Effect.sleep(Duration.millis(300))
        assert.strictEqual(removed.received.length, countAtDelete)
        assert.isFalse(removed.received.some((r) => bodyOf(r).ticket_id === after.id))
      })
    )

    it.scoped(
      "a webhook whose checkpoint was reset (a restore) starts again at the end of the log, resending nothing",
      () =>
        Effect.gen(function* () {
          const { org, hook, created } = yield* hookedOrganization()
          const before = yield* ticket(org)
          yield* eventually(
            "the first ticket",
            Effect.sync(() => (hook.received.length >= 1 ? true : undefined))
          )
          const sql = yield* SqlClient.SqlClient
          yield* sql`DELETE FROM hd_checkpoints WHERE consumer_id = ${`webhook-${created.id}`}`.pipe(Effect.orDie)
          // The worker puts the checkpoint back at the end of the log; only events after that are the webhook's.
          yield* eventually(
            "the checkpoint to be set again",
            Effect.map(
              sql`SELECT 1 FROM hd_checkpoints WHERE consumer_id = ${`webhook-${created.id}`}`.pipe(Effect.orDie),
              (rows) => (rows.length === 1 ? true : undefined)
            )
          )
          const after = yield* ticket(org)
          yield* eventually(
            "the later ticket",
            Effect.sync(() => (hook.received.some((r) => bodyOf(r).ticket_id === after.id) ? true : undefined))
          )
          const opened = hook.received.filter((r) => bodyOf(r).ticket_id === before.id && bodyOf(r).position === 1)
          assert.strictEqual(opened.length, 1, "the first ticket's TicketCreated was not sent again")
        })
    )

    it.scoped("failing past the retry window disables the webhook; the owner reads why; re-enabling clears it", () =>
      Effect.gen(function* () {
        const { org, hook, created } = yield* hookedOrganization({
          respond: () => 500,
          options: testWebhookOptions({ retryWindow: Duration.millis(600) })
        })
        yield* ticket(org)
        const disabled = yield* eventually(
          "the webhook to be disabled",
          Effect.map(get(hookPath(org, created.id), { token: org.ownerToken }), (r) =>
            r.body.active === false ? r.body : undefined
          )
        )
        assert.match(
          disabled.disabled_reason,
          /^Deliveries failed for .*: event [0-9a-f-]{36} \(TicketCreated\) was tried \d+ times, last: HTTP 500\.$/
        )
        assert.isNotNull(disabled.disabled_at)
        assert.isAtLeast(hook.received.length, 2, "retried before giving up")
        const attemptsAtDisable = hook.received.length
        yield* Effect.sleep(Duration.millis(300))
        assert.strictEqual(hook.received.length, attemptsAtDisable, "nothing sent while disabled")

        const enabled = yield* patch(hookPath(org, created.id), { token: org.ownerToken, json: { active: true } })
        assert.strictEqual(enabled.status, 200)
        assert.isTrue(enabled.body.active)
        assert.strictEqual(enabled.body.disabled_reason, "")
        assert.isNull(enabled.body.disabled_at)
      })
    )

    it.scoped("without WEBHOOKS_ALLOW_PRIVATE a delivery to a loopback address is refused, by name too", () =>
      Effect.gen(function* () {
        yield* worker(testWebhookOptions({ allowPrivate: false }))
        const org = yield* organization
        const hook = yield* receiver()
        const byAddress = yield* createWebhook(org, { url: hook.url })
        const byName = yield* createWebhook(org, { url: hook.url.replace("127.0.0.1", "localhost") })
        yield* ticket(org)
        for (const created of [byAddress, byName]) {
          const attempt = yield* eventually(
            "a refused attempt",
            Effect.map(
              get(hookPath(org, created.id, "deliveries/"), { token: org.ownerToken }),
              (r) => r.body.results[0]
            )
          )
          assert.isFalse(attempt.succeeded)
          assert.isNull(attempt.status_code)
          assert.match(attempt.error, /refused to connect to (127\.0\.0\.1|::1)/)
        }
        assert.strictEqual(hook.received.length, 0)
      })
    )
  })

  layer(testAppWith({}), { excludeTestServices: true })("without WEBHOOKS_ALLOW_PRIVATE", (it) => {
    it.scoped("a loopback, private or link-local URL is refused when saved", () =>
      Effect.gen(function* () {
        const org = yield* organization
        for (const url of [
          "http://127.0.0.1:8080/",
          "http://localhost/",
          "http://api.localhost/",
          "http://10.1.2.3/",
          "http://192.168.0.1/",
          "http://169.254.169.254/latest/meta-data/",
          "http://[::1]/",
          "http://[::ffff:127.0.0.1]/",
          "http://[fd00::1]/",
          "http://0.0.0.0/"
        ]) {
          const response = yield* post(`${org.path}webhooks/`, { token: org.ownerToken, json: { url } })
          assert.strictEqual(response.status, 400, url)
          assert.match(response.body.url[0], /loopback, private or link-local/, url)
        }
        const created = yield* createWebhook(org, { url: "https://93.184.215.14/hook" })
        const moved = yield* patch(hookPath(org, created.id), {
          token: org.ownerToken,
          json: { url: "http://10.0.0.1/" }
        })
        assert.strictEqual(moved.status, 400)
      })
    )
  })

  describe.runIf(usesRealPostgres)("two replicas", () => {
    layer(AppLive, { excludeTestServices: true, timeout: "120 seconds" })("one database", (it) => {
      it.scoped("two replicas fan out and deliver concurrently: each event is claimed and received once", () =>
        Effect.gen(function* () {
          const org = yield* organization
          const hook = yield* receiver()
          yield* createWebhook(org, { url: hook.url })
          const tickets = yield* Effect.forEach(
            Array.from({ length: 30 }, (_, i) => i),
            (i) => ticket(org, { customer_email: `replica-${i}@example.com` }),
            { concurrency: 4 }
          )
          const sql = yield* SqlClient.SqlClient
          const expected = new Set(
            (yield* sql<{ eventId: string }>`
              SELECT event_id FROM hd_events WHERE stream_id = ANY(${tickets.map((t) => `ticket-${t.id}`)}::text[])`.pipe(
              Effect.orDie
            )).map((row) => row.eventId)
          )
          assert.isAtLeast(expected.size, 30)
          const url = yield* databaseUrl
          const options = testWebhookOptions({ batchSize: 4 })
          const replica = (name: string) =>
            Effect.gen(function* () {
              const context = yield* Layer.build(
                PostgresEventStore.Default.pipe(Layer.provideMerge(replicaPool(url, name, 4)))
              )
              const rounds = yield* Effect.provide(deliveryRounds(options), context)
              return { fanOut: Effect.provide(fanOutRound, context), deliver: Effect.provide(rounds.round, context) }
            })
          const received = () => new Set(hook.received.map((r) => bodyOf(r).id))
          const done = () => [...expected].every((id) => received().has(id))
          const work = (r: Effect.Effect.Success<ReturnType<typeof replica>>) =>
            Effect.gen(function* () {
              let claimed = 0
              const deadline = Date.now() + 60_000
              while (!done() && Date.now() < deadline) {
                yield* r.fanOut
                const round = yield* r.deliver
                claimed += round.claimed
                if (round.claimed === 0) yield* Effect.sleep(Duration.millis(10))
              }
              return claimed
            })
          const [a, b] = [yield* replica("webhooks-a"), yield* replica("webhooks-b")]
          const [claimedA, claimedB] = yield* Effect.all([work(a), work(b)], { concurrency: 2 })
          assert.isTrue(done(), "every event delivered")
          yield* Effect.sleep(Duration.millis(300))
          const ids = hook.received.map((r) => bodyOf(r).id)
          assert.strictEqual(ids.length, expected.size, "no event twice")
          assert.strictEqual(new Set(ids).size, expected.size)
          assert.strictEqual(claimedA + claimedB, expected.size, "each delivery claimed once")
          assert.isAbove(claimedA, 0, "the first replica took part")
          assert.isAbove(claimedB, 0, "the second replica took part")
          for (const t of tickets) positionsInOrder(hook.received, t.id)
        })
      )
    })
  })
})
