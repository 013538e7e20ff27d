import { Either } from "effect"
import type {
  AddMessage,
  AssignTicket,
  ClassifyTicket,
  CloseTicket,
  CreateTicket,
  MergeTickets,
  RecordLanguage,
  ReportDelivery,
  SetTags,
  SnoozeTicket,
  SnoozeTimerElapsed,
  TicketCommand
} from "./Commands.js"
import { applyDeliveryReport, shortFailureReason } from "./Delivery.js"
import {
  AudioTicketHasNoHtml,
  CannotMergeAcrossOrganizations,
  CannotMergeIntoItself,
  CannotMergeIntoMergedTicket,
  CannotSnoozeClosedTicket,
  CannotSnoozeSpamTicket,
  ClassificationRequiredToClose,
  CreateEmailNotFailed,
  CreateEmailRequiresAssociate,
  CsatAlreadyRecorded,
  CsatRatingOutOfRange,
  CustomerCannotWriteInternalNote,
  DeliveryNotTracked,
  DuplicateMessageId,
  EmptyMessage,
  InvalidLanguageCode,
  type MergeError,
  MessageNotFound,
  NotAnAudioTicket,
  OnlyRepliesToTheCustomerAreEmailed,
  SnoozeMustBeInFuture,
  SnoozeNotElapsed,
  TicketAlreadyClosed,
  TicketAlreadyExists,
  TicketAlreadyMerged,
  type TicketError,
  TicketMergedAway,
  TicketNotClosed,
  TicketNotFound,
  TicketNotSnoozed
} from "./Errors.js"
import {
  type CarriedMessage,
  CreateEmailDeliveryReported,
  MessageAdded,
  MessageDeliveryReported,
  TicketActivated,
  TicketAssigned,
  TicketClassified,
  TicketClosed,
  TicketCreated,
  TicketCsatRecorded,
  TicketEmailResendRequested,
  type TicketEvent,
  TicketLanguageDetected,
  TicketMarkedSpam,
  TicketMergedFrom,
  TicketMergedInto,
  TicketPriorityChanged,
  TicketReopened,
  TicketSentimentAnalyzed,
  TicketSlaBreached,
  TicketSnoozed,
  TicketSummarized,
  TicketTagsChanged,
  TicketTranscriptRecorded,
  TicketUnmarkedSpam,
  TicketUnsnoozed,
  TicketWaitingOnChanged
} from "./Events.js"
import type { Ticket, TicketState } from "./State.js"
import type { TicketRef } from "./Values.js"

/** What `decide` answers: the events to append (possibly none), or the rule the command breaks. */
export type Decision = Either.Either<ReadonlyArray<TicketEvent>, TicketError>

const none: Decision = Either.right([])

// Events derived from a validated command and state are built without the constructor's validation, which costs
// far more than the event itself; encoding validates every event again before it can be stored (EventCodec).
const DERIVED = { disableValidation: true } as const
const accept = (...events: ReadonlyArray<TicketEvent>): Decision => Either.right(events)

const nothingButTimers = (ticket: Ticket, command: TicketCommand): Decision | undefined =>
  ticket.mergedInto === null
    ? undefined
    : command._tag === "SnoozeTimerElapsed"
      ? none // the merge cleared the snooze; a timer that fires afterwards is stale
      : Either.left(new TicketMergedAway({ ticketId: ticket.id, mergedInto: ticket.mergedInto }))

/**
 * Decides a command against a ticket's state: the events it causes, or a typed refusal naming the
 * broken rule. Pure: time and actor come from the command. A command that would change nothing
 * (setting a value the ticket already has, a duplicate or stale report) yields no events.
 */
export const decide = (command: TicketCommand, state: TicketState): Decision => {
  if (command._tag === "CreateTicket") {
    return state._tag === "Ticket"
      ? Either.left(new TicketAlreadyExists({ ticketId: command.ticketId }))
      : create(command)
  }
  if (state._tag === "NoTicket") return Either.left(new TicketNotFound({ ticketId: command.ticketId }))
  const refused = nothingButTimers(state, command)
  if (refused !== undefined) return refused
  const base = { at: command.at, by: command.actor }
  switch (command._tag) {
    case "RecordTranscript":
      if (state.kind !== "audio") return Either.left(new NotAnAudioTicket({ ticketId: state.id }))
      return command.transcript === state.description
        ? none
        : accept(new TicketTranscriptRecorded({ ...base, transcript: command.transcript }, DERIVED))
    case "CloseTicket":
      return close(command, state)
    case "ReopenTicket":
      return state.status !== "closed"
        ? Either.left(new TicketNotClosed({ ticketId: state.id }))
        : accept(new TicketReopened({ ...base, reason: "manual" }, DERIVED))
    case "ClassifyTicket":
      return classify(command, state)
    case "ChangePriority":
      return command.priority === state.priority
        ? none
        : accept(new TicketPriorityChanged({ ...base, priority: command.priority }, DERIVED))
    case "SetWaitingOn":
      return command.waitingOn === state.waitingOn
        ? none
        : accept(new TicketWaitingOnChanged({ ...base, waitingOn: command.waitingOn }, DERIVED))
    case "AssignTicket":
      return assign(command, state)
    case "SetTags":
      return setTags(command, state)
    case "MarkSpam":
      return state.isSpam ? none : accept(new TicketMarkedSpam(base, DERIVED))
    case "UnmarkSpam":
      return state.isSpam ? accept(new TicketUnmarkedSpam(base, DERIVED)) : none
    case "RecordCsatResponse":
      if (state.csatResponse !== null) return Either.left(new CsatAlreadyRecorded({ ticketId: state.id }))
      return Number.isInteger(command.rating) && command.rating >= 1 && command.rating <= 5
        ? accept(new TicketCsatRecorded({ ...base, rating: command.rating, comment: command.comment }, DERIVED))
        : Either.left(new CsatRatingOutOfRange({ rating: command.rating }))
    case "RecordSummary":
      return command.summary === state.summary
        ? none
        : accept(new TicketSummarized({ ...base, summary: command.summary }, DERIVED))
    case "RecordSentiment":
      return command.sentiment === state.sentiment
        ? none
        : accept(new TicketSentimentAnalyzed({ ...base, sentiment: command.sentiment }, DERIVED))
    case "RecordLanguage":
      return recordLanguage(command, state)
    case "AddMessage":
      return addMessage(command, state)
    case "SnoozeTicket":
      return snooze(command, state)
    case "UnsnoozeTicket":
      return state.snoozedUntil === null
        ? Either.left(new TicketNotSnoozed({ ticketId: state.id }))
        : accept(new TicketUnsnoozed({ ...base, reason: "manual" }, DERIVED))
    case "SnoozeTimerElapsed":
      return timerElapsed(command, state)
    case "ReportDelivery":
      return reportDelivery(command, state)
    case "RecordSlaBreach":
      return accept(
        new TicketSlaBreached(
          { ...base, policyId: command.policyId, target: command.target, dueAt: command.dueAt },
          DERIVED
        )
      )
    case "ResendCreationEmail": {
      // Only a failed create-email is sent again; from any other state a resend would duplicate a mail (0663).
      const status = state.createEmailDelivery?.status ?? null
      return status === "failed"
        ? accept(new TicketEmailResendRequested(base, DERIVED))
        : Either.left(new CreateEmailNotFailed({ ticketId: state.id, status }))
    }
  }
}

const create = (command: CreateTicket): Decision => {
  if (command.kind === "audio" && command.descriptionHtml !== "") {
    return Either.left(new AudioTicketHasNoHtml({ ticketId: command.ticketId }))
  }
  if (command.sendsCreateEmail && command.actor.role !== "associate") {
    return Either.left(new CreateEmailRequiresAssociate({ ticketId: command.ticketId }))
  }
  const { _tag, actor, ...fields } = command
  return accept(new TicketCreated({ ...fields, by: actor }, DERIVED))
}

const close = (command: CloseTicket, state: Ticket): Decision => {
  if (state.status === "closed") return Either.left(new TicketAlreadyClosed({ ticketId: state.id }))
  if (command.classification === "") return Either.left(new ClassificationRequiredToClose({ ticketId: state.id }))
  return accept(
    new TicketClosed({ at: command.at, by: command.actor, classification: command.classification }, DERIVED)
  )
}

const classify = (command: ClassifyTicket, state: Ticket): Decision => {
  if (command.classification === "" && state.status === "closed") {
    return Either.left(new ClassificationRequiredToClose({ ticketId: state.id }))
  }
  return command.classification === state.classification
    ? none
    : accept(
        new TicketClassified({ at: command.at, by: command.actor, classification: command.classification }, DERIVED)
      )
}

const sameUser = (a: { readonly id: number } | null, b: { readonly id: number } | null): boolean =>
  a === null || b === null ? a === b : a.id === b.id

const assign = (command: AssignTicket, state: Ticket): Decision =>
  sameUser(command.assignee, state.assignee)
    ? none
    : accept(new TicketAssigned({ at: command.at, by: command.actor, assignee: command.assignee }, DERIVED))

const setTags = (command: SetTags, state: Ticket): Decision => {
  const seen = new Set<number>()
  const tags = command.tags.filter((t) => {
    if (seen.has(t.id)) return false
    seen.add(t.id)
    return true
  })
  const unchanged = tags.length === state.tags.length && tags.every((t, i) => t.id === state.tags[i]!.id)
  return unchanged ? none : accept(new TicketTagsChanged({ at: command.at, by: command.actor, tags }, DERIVED))
}

const languageCode = /^[a-z]{2}$/

const recordLanguage = (command: RecordLanguage, state: Ticket): Decision => {
  if (command.language !== "" && !languageCode.test(command.language)) {
    return Either.left(new InvalidLanguageCode({ language: command.language }))
  }
  return command.language === state.language
    ? none
    : accept(new TicketLanguageDetected({ at: command.at, by: command.actor, language: command.language }, DERIVED))
}

const addMessage = (command: AddMessage, state: Ticket): Decision => {
  const role = command.actor.role
  const visible = command.isVisibleToCustomer
  if (state.messages.some((m) => m.id === command.messageId)) {
    return Either.left(new DuplicateMessageId({ ticketId: state.id, messageId: command.messageId }))
  }
  if (role === "customer" && !visible) return Either.left(new CustomerCannotWriteInternalNote({ ticketId: state.id }))
  if (command.content.trim() === "" && command.attachments.length === 0) {
    return Either.left(new EmptyMessage({ ticketId: state.id }))
  }
  if (command.sendsEmail && (role === "customer" || !visible)) {
    return Either.left(new OnlyRepliesToTheCustomerAreEmailed({ ticketId: state.id }))
  }
  // Internal notes are never mailed. Replies to the customer keep the conversation's CC: the message's
  // own list, else the last customer-visible message's, else the creation-time list. BCC is never inherited.
  const externalRecipientEmails = !visible
    ? []
    : (command.externalRecipientEmails ??
      (role === "customer" ? [] : (state.lastVisibleRecipientEmails ?? state.externalRecipientEmails)))
  const bccRecipientEmails = visible ? (command.bccRecipientEmails ?? []) : []
  const base = { at: command.at, by: command.actor }
  const events: Array<TicketEvent> = [
    new MessageAdded(
      {
        ...base,
        message: {
          id: command.messageId,
          author: command.actor.user,
          role,
          sender: command.sender,
          content: command.content,
          contentHtml: command.contentHtml,
          kind: command.kind,
          hasRawContent: command.hasRawContent,
          isVisibleToCustomer: visible,
          externalRecipientEmails,
          bccRecipientEmails,
          nextAssignee: command.nextAssignee,
          nextPriority: command.nextPriority,
          nextAction: command.nextAction,
          attachments: command.attachments,
          sendsEmail: command.sendsEmail,
          createdAt: command.at
        }
      },
      DERIVED
    )
  ]
  if (visible && role === "associate" && state.status === "created") events.push(new TicketActivated(base, DERIVED))
  if (role === "customer" && state.status === "closed") {
    events.push(new TicketReopened({ ...base, reason: "customer_reply" }, DERIVED))
  }
  if (role === "customer" && state.snoozedUntil !== null) {
    events.push(new TicketUnsnoozed({ ...base, reason: "customer_reply" }, DERIVED))
  }
  if (command.nextAssignee !== null && !sameUser(command.nextAssignee, state.assignee)) {
    events.push(new TicketAssigned({ ...base, assignee: command.nextAssignee }, DERIVED))
  }
  if (command.nextPriority !== null && command.nextPriority !== state.priority) {
    events.push(new TicketPriorityChanged({ ...base, priority: command.nextPriority }, DERIVED))
  }
  return Either.right(events)
}

const snooze = (command: SnoozeTicket, state: Ticket): Decision => {
  if (state.status === "closed") return Either.left(new CannotSnoozeClosedTicket({ ticketId: state.id }))
  if (state.isSpam) return Either.left(new CannotSnoozeSpamTicket({ ticketId: state.id }))
  if (command.until.epochMillis <= command.at.epochMillis) {
    return Either.left(new SnoozeMustBeInFuture({ ticketId: state.id, until: command.until, at: command.at }))
  }
  return accept(new TicketSnoozed({ at: command.at, by: command.actor, until: command.until }, DERIVED))
}

const timerElapsed = (command: SnoozeTimerElapsed, state: Ticket): Decision => {
  const until = state.snoozedUntil
  // Not snoozed any more, or re-snoozed since this timer was scheduled: the timer is stale.
  if (until === null || until.epochMillis !== command.snoozedUntil.epochMillis) return none
  if (command.at.epochMillis < until.epochMillis) {
    return Either.left(new SnoozeNotElapsed({ ticketId: state.id, snoozedUntil: until, at: command.at }))
  }
  return accept(new TicketUnsnoozed({ at: command.at, by: command.actor, reason: "timer" }, DERIVED))
}

const reportDelivery = (command: ReportDelivery, state: Ticket): Decision => {
  // A reason on `sent` names the recipients the server refused while it took the mail for the others (0662).
  const reason = command.status === "read" ? "" : shortFailureReason(command.reason)
  const base = { at: command.at, by: command.actor, status: command.status, reason }
  if (command.messageId === null) {
    const current = state.createEmailDelivery
    if (current === null) return Either.left(new DeliveryNotTracked({ ticketId: state.id, messageId: null }))
    return applyDeliveryReport(current, command.status, command.at, reason) === current
      ? none
      : accept(new CreateEmailDeliveryReported(base, DERIVED))
  }
  const messageId = command.messageId
  const message = state.messages.find((m) => m.id === messageId)
  if (message === undefined) return Either.left(new MessageNotFound({ ticketId: state.id, messageId }))
  if (message.delivery === null) return Either.left(new DeliveryNotTracked({ ticketId: state.id, messageId }))
  return applyDeliveryReport(message.delivery, command.status, command.at, reason) === message.delivery
    ? none
    : accept(new MessageDeliveryReported({ ...base, messageId }, DERIVED))
}

/** The events of a merge for each of the two streams it writes. */
export interface MergeDecision {
  /** For the merged-away ticket's stream, which the app closes with this append. */
  readonly source: ReadonlyArray<TicketEvent>
  /** For the surviving ticket's stream. */
  readonly target: ReadonlyArray<TicketEvent>
}

const refOf = (t: Ticket): TicketRef => ({ id: t.id, publicId: t.publicId, subject: t.subject })

/**
 * The source's opening request (its description and ticket-level attachments) as a message carried to the survivor,
 * written when and by whom the ticket was opened; `null` when there is nothing to carry (an audio ticket still
 * waiting for its transcript, without attachments). Its create-email's delivery stays on the source: the survivor
 * tracks no mail for it.
 */
const openingRequest = (source: Ticket, id: number, from: TicketRef): CarriedMessage | null => {
  if (source.description.trim() === "" && source.descriptionHtml === "" && source.attachments.length === 0) return null
  const byCustomer = source.createdBy.role === "customer"
  return {
    id,
    author: source.createdBy.user,
    role: source.createdBy.role,
    sender:
      byCustomer && source.fromEmail !== ""
        ? { email: source.fromEmail, name: source.fromName, userId: null, profilePicture: "" }
        : null,
    content: source.description,
    contentHtml: source.descriptionHtml,
    kind: source.kind,
    hasRawContent: false,
    isVisibleToCustomer: true,
    externalRecipientEmails: source.externalRecipientEmails,
    bccRecipientEmails: source.bccRecipientEmails,
    nextAssignee: null,
    nextPriority: null,
    nextAction: "",
    attachments: source.attachments,
    sendsEmail: false,
    createdAt: source.createdAt,
    delivery: null,
    mergedFromTicket: from
  }
}

/**
 * Decides a merge over both tickets' states. The app appends `source` and `target` in one
 * multi-stream append (closing the source stream), so either both sides happen or neither.
 */
export const decideMerge = (
  command: MergeTickets,
  source: TicketState,
  target: TicketState
): Either.Either<MergeDecision, MergeError> => {
  if (command.sourceTicketId === command.targetTicketId) {
    return Either.left(new CannotMergeIntoItself({ ticketId: command.sourceTicketId }))
  }
  if (source._tag === "NoTicket") return Either.left(new TicketNotFound({ ticketId: command.sourceTicketId }))
  if (target._tag === "NoTicket") return Either.left(new TicketNotFound({ ticketId: command.targetTicketId }))
  if (source.mergedInto !== null) {
    return Either.left(new TicketAlreadyMerged({ ticketId: source.id, mergedInto: source.mergedInto }))
  }
  if (target.mergedInto !== null) {
    return Either.left(new CannotMergeIntoMergedTicket({ targetTicketId: target.id, mergedInto: target.mergedInto }))
  }
  if (source.organizationId !== target.organizationId) {
    return Either.left(new CannotMergeAcrossOrganizations({ sourceTicketId: source.id, targetTicketId: target.id }))
  }
  const base = { at: command.at, by: command.actor }
  const from = refOf(source)
  const carried: Array<CarriedMessage> = source.messages.map(({ updatedAt: _, mergedFromTicket, ...m }) => ({
    ...m,
    mergedFromTicket: mergedFromTicket ?? from
  }))
  const opening = command.openingMessageId === null ? null : openingRequest(source, command.openingMessageId, from)
  if (opening !== null && [...target.messages, ...carried].some((m) => m.id === opening.id)) {
    return Either.left(new DuplicateMessageId({ ticketId: target.id, messageId: opening.id }))
  }
  const messages = opening === null ? carried : [opening, ...carried]
  return Either.right({
    source: [new TicketMergedInto({ ...base, into: refOf(target) }, DERIVED)],
    target: [new TicketMergedFrom({ ...base, from, messages }, DERIVED)]
  })
}
