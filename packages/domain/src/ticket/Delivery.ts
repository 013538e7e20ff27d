import { type DateTime, Schema } from "effect"
import { DeliveryStatus, Instant, type ReportedDeliveryStatus } from "./Values.js"

/**
 * Where an outbound email stands (the ticket's create-email, or a message's email).
 * `null` in views means there is no outbound email to track.
 */
export const Delivery = Schema.Struct({
  status: DeliveryStatus,
  sentAt: Schema.NullOr(Instant),
  readAt: Schema.NullOr(Instant),
  failedAt: Schema.NullOr(Instant),
  failureReason: Schema.String,
  /**
   * Recipients the server refused while it took the mail for the others (a `sent` report with a reason), and when:
   * the earliest such report (decision 0662). Absent from deliveries recorded before it.
   */
  refusal: Schema.optionalWith(Schema.String, { default: () => "" }),
  refusalAt: Schema.optionalWith(Schema.NullOr(Instant), { default: () => null })
})
export type Delivery = typeof Delivery.Type

/** The state of an email that has just been queued. */
export const pendingDelivery: Delivery = {
  status: "pending",
  sentAt: null,
  readAt: null,
  failedAt: null,
  failureReason: "",
  refusal: "",
  refusalAt: null
}

/** Longest failure reason kept; providers send whole SMTP transcripts and the field is only diagnostic. */
export const maxFailureReasonLength = 200

/**
 * Rank of each status in the one order statuses may move along. A read receipt outranks a failure
 * because it proves the mail arrived (bounces for one of several recipients arrive late); see
 * docs/decisions/0203-delivery-status-ordering.md.
 */
const rank: Record<DeliveryStatus, number> = { pending: 0, sent: 1, failed: 2, read: 3 }

const earliest = (current: DateTime.Utc | null, candidate: DateTime.Utc): DateTime.Utc =>
  current === null || candidate.epochMillis < current.epochMillis ? candidate : current

/**
 * Folds one delivery report into a delivery state. The result depends only on the set of reports,
 * not on their order: the status is the highest-ranked one reported, and each timestamp is the
 * earliest report of its kind (a `read` also proves the mail was handed over, so it sets `sentAt`
 * when no earlier `sent` is known). Duplicates therefore change nothing.
 */
export const applyDeliveryReport = (
  delivery: Delivery,
  status: ReportedDeliveryStatus,
  at: DateTime.Utc,
  reason: string
): Delivery => {
  switch (status) {
    case "sent": {
      const sentAt = earliest(delivery.sentAt, at)
      const next = rank.sent > rank[delivery.status] ? "sent" : delivery.status
      // A reason on `sent`: some recipients were refused. The earliest such report is kept (ties: the smaller text).
      const refused =
        reason !== "" &&
        (delivery.refusalAt === null ||
          at.epochMillis < delivery.refusalAt.epochMillis ||
          (at.epochMillis === delivery.refusalAt.epochMillis && reason < delivery.refusal))
      if (sentAt === delivery.sentAt && next === delivery.status && !refused) return delivery
      return refused
        ? { ...delivery, status: next, sentAt, refusal: reason, refusalAt: at }
        : { ...delivery, status: next, sentAt }
    }
    case "read": {
      const sentAt = earliest(delivery.sentAt, at)
      const readAt = earliest(delivery.readAt, at)
      if (sentAt === delivery.sentAt && readAt === delivery.readAt && delivery.status === "read") return delivery
      // A failure recorded before the read receipt was wrong; the receipt clears it (not the refused recipients).
      return { ...delivery, status: "read", sentAt, readAt, failedAt: null, failureReason: "" }
    }
    case "failed": {
      if (delivery.status === "read") return delivery
      const failedAt = earliest(delivery.failedAt, at)
      if (failedAt === delivery.failedAt && delivery.status === "failed") return delivery
      return {
        ...delivery,
        status: "failed",
        failedAt,
        failureReason: failedAt === delivery.failedAt ? delivery.failureReason : reason
      }
    }
  }
}

/** Trims a provider's failure text to the short diagnostic the views carry. */
export const shortFailureReason = (reason: string): string => {
  const trimmed = reason.trim()
  return trimmed.length <= maxFailureReasonLength ? trimmed : `${trimmed.slice(0, maxFailureReasonLength - 1)}…`
}
