import { SqlClient } from "@effect/sql"
import { AddMessage, CloseTicket, OrganizationId, systemActor, type Ticket, type TicketCommand } from "@helpdesk/domain"
import { DateTime, Effect } from "effect"
import { TicketCommands } from "../Tickets/TicketCommands.js"
import { repliesByEmail } from "../Tickets/TicketPipeline.js"
import { dueSweeps } from "./DueTimer.js"
import { forEachClaimed, TIMER_BATCH, timerServiceLoop } from "./Sweep.js"

/** What the inactivity timer does to a ticket that is due. */
export type InactivityAction = "remind" | "close"

interface DueRow {
  readonly ticketId: string
  readonly organizationId: string
  readonly waitingOnCustomerSince: Date
  readonly action: InactivityAction
  readonly reminderDays: number
  readonly maxDays: number
  readonly closeOn: boolean
}

const days = (n: number) => (n === 1 ? "1 day" : `${n} days`)

/**
 * The reminder's text (docs/decisions/0760-timers.md): fixed, in English, naming the ticket's public id and
 * subject; when the ticket will be closed for inactivity, it also says in how many days.
 */
export const reminderText = (ticket: Pick<Ticket, "publicId" | "subject">, closesInDays: number | null): string =>
  `We are still waiting for your reply on ticket #${ticket.publicId} ("${ticket.subject}"). ` +
  "If you still need help, simply reply to this message." +
  (closesInDays === null ? "" : ` Without a reply, the ticket will be closed in ${days(closesInDays)}.`)

/**
 * Whether the timer may still act on the ticket as its row said: it waits on the customer and is open, not
 * snoozed, not spam and not merged away. (The claimed rows are locked, so this holds; checked anyway.)
 */
const stillWaiting = (ticket: Ticket): boolean =>
  ticket.waitingOn === "customer" &&
  ticket.status !== "closed" &&
  !ticket.isSpam &&
  ticket.mergedInto === null &&
  ticket.snoozedUntil === null

/**
 * The inactivity timer (docs/decisions/0760-timers.md). A ticket that waits on the customer
 * (`hd_tickets.waiting_on_customer_since`, see `Tickets/ReadModel/WaitingSince.ts`) gets, per its inbox's settings
 * (periods in whole days of 24 hours; an inbox's `null` period is the organization's; `0` turns the rule off):
 *
 * - the **reminder** once the reminder period has passed since it started waiting, when
 *   `enable_inactivity_reminders` is on: a customer-visible message by the system, e-mailed when the customer
 *   has an address and the channel is e-mail or API; once per waiting period (`hd_inactivity_reminders`);
 * - **closing** with classification `customer_inactivity` once the maximum period has passed, when
 *   `enable_auto_close_inactive_tickets` is on. When reminders are in force too, the customer is always warned
 *   first: the close waits until the reminder has been sent and (maximum − reminder) days have passed since it.
 *   A reminder period not shorter than the maximum is ignored when auto-close is on (the ticket closes first).
 *
 * Which rule is due is decided in the claiming query, so a batch holds only tickets with something to do.
 * Claiming and writing work as in the snooze timer: `FOR UPDATE SKIP LOCKED` on the ticket's read-model and
 * stream rows, each ticket through `TicketCommands.asSystem` in a savepoint with its reminder row and outbox
 * row, one commit per batch.
 */
export class InactivityTimer extends Effect.Service<InactivityTimer>()("@helpdesk/http/Timers/InactivityTimer", {
  dependencies: [TicketCommands.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const commands = yield* TicketCommands

    /** Records the reminder of this waiting period; false when it was already sent. */
    const recordReminder = (ticketId: number, waitingSince: Date, messageId: number, sentAt: DateTime.Utc) =>
      sql<{ ticketId: string }>`
        INSERT INTO hd_inactivity_reminders AS r (ticket_id, waiting_since, message_id, sent_at)
        VALUES (${ticketId}, ${waitingSince}, ${messageId}, ${DateTime.toDateUtc(sentAt)})
        ON CONFLICT (ticket_id) DO UPDATE
          SET waiting_since = excluded.waiting_since, message_id = excluded.message_id, sent_at = excluded.sent_at
          WHERE r.waiting_since <> excluded.waiting_since
        RETURNING ticket_id`.pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.orDie
      )

    /** The commands for one claimed ticket, decided again on its current state inside the write. */
    const plan = (row: DueRow, now: DateTime.Utc) => (ticket: Ticket, at: DateTime.Utc) =>
      Effect.gen(function* () {
        if (!stillWaiting(ticket)) return []
        const ticketId = ticket.id
        // The write's instant, or the sweep's `now` when a caller sweeps ahead of the clock (tests).
        const when = DateTime.max(at, now)
        if (row.action === "close") {
          return [
            new CloseTicket({ ticketId, at: when, actor: systemActor, classification: "customer_inactivity" })
          ] satisfies ReadonlyArray<TicketCommand>
        }
        const messageId = yield* commands.nextMessageId
        if (!(yield* recordReminder(ticketId, row.waitingOnCustomerSince, messageId, when))) return []
        return [
          new AddMessage({
            ticketId,
            at: when,
            actor: systemActor,
            messageId,
            content: reminderText(ticket, row.closeOn ? row.maxDays - row.reminderDays : null),
            isVisibleToCustomer: true,
            sendsEmail: repliesByEmail(ticket.customer.email, ticket.channel.type)
          })
        ] satisfies ReadonlyArray<TicketCommand>
      })

    // Reminders and closes due at `now`, up to `limit` tickets a claiming transaction.
    const sweeps = dueSweeps(sql, "InactivityTimer", TIMER_BATCH, (now, limit) =>
      Effect.gen(function* () {
        const at = DateTime.toDateUtc(now)
        const due = yield* sql<DueRow>`
          SELECT t.ticket_id, t.organization_id, t.waiting_on_customer_since, d.reminder_days, d.max_days,
                 p.close_on, CASE WHEN c.close_due THEN 'close' ELSE 'remind' END AS action
          FROM hd_tickets t
          JOIN hd_streams s ON s.stream_id = t.stream_id
          JOIN inboxes i ON i.id = t.inbox_id
          JOIN organizations o ON o.id = i.organization_id
          CROSS JOIN LATERAL (
            SELECT coalesce(i.customer_inactivity_reminder_period, o.customer_inactivity_reminder_period) AS reminder_days,
                   coalesce(i.customer_max_inactivity_period, o.customer_max_inactivity_period) AS max_days
          ) d
          CROSS JOIN LATERAL (
            SELECT i.enable_auto_close_inactive_tickets AND d.max_days > 0 AS close_on,
                   i.enable_inactivity_reminders AND d.reminder_days > 0
                     AND NOT (i.enable_auto_close_inactive_tickets AND d.max_days > 0 AND d.reminder_days >= d.max_days)
                     AS remind_on
          ) p
          LEFT JOIN hd_inactivity_reminders r
            ON r.ticket_id = t.ticket_id AND r.waiting_since = t.waiting_on_customer_since
          CROSS JOIN LATERAL (
            SELECT p.remind_on AND r.ticket_id IS NULL
                     AND t.waiting_on_customer_since <= ${at}::timestamptz - make_interval(hours => 24 * d.reminder_days)
                     AS remind_due,
                   p.close_on
                     AND t.waiting_on_customer_since <= ${at}::timestamptz - make_interval(hours => 24 * d.max_days)
                     AND (NOT p.remind_on
                       OR coalesce(r.sent_at <= ${at}::timestamptz - make_interval(hours => 24 * (d.max_days - d.reminder_days)), false))
                     AS close_due
          ) c
          WHERE t.waiting_on_customer_since <= ${at}::timestamptz - interval '24 hours'
            AND (c.remind_due OR c.close_due)
          ORDER BY t.waiting_on_customer_since
          LIMIT ${limit}
          FOR UPDATE OF t, s SKIP LOCKED`
        return yield* forEachClaimed(
          "Inactivity timer",
          due,
          (row) => Number(row.ticketId),
          (row) => {
            let acted = false
            return commands
              .asSystem(OrganizationId.make(row.organizationId), Number(row.ticketId), (ticket, at) =>
                Effect.tap(plan(row, now)(ticket, at), (planned) => {
                  acted = planned.length > 0
                })
              )
              .pipe(Effect.map(() => acted))
          }
        )
      })
    )

    return sweeps
  })
}) {}

/** The inactivity timer's loop in every replica: a round every `INACTIVITY_TIMER_INTERVAL` (default 1 minute). */
export const InactivityTimerLive = timerServiceLoop(
  InactivityTimer,
  "Inactivity timer",
  "INACTIVITY_TIMER_INTERVAL",
  "1 minute"
)
