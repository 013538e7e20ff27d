import type { OrganizationId } from "@helpdesk/domain"
import { Effect, Schema } from "effect"
import type { Caller } from "../Auth/CurrentCaller.js"
import { Tokens } from "../Auth/Tokens.js"
import { BusinessHours } from "../BusinessHours/BusinessHours.js"
import { BusinessHoursExceptions } from "../BusinessHours/BusinessHoursExceptions.js"
import { ScheduleChangeFromBody } from "../BusinessHours/WireBody.js"
import { CustomerCreate } from "../Customers/Customer.js"
import { Customers } from "../Customers/Customers.js"
import { ArticleCreate } from "../HelpCenter/Article.js"
import { Articles } from "../HelpCenter/Articles.js"
import { CollectionCreate } from "../HelpCenter/Collection.js"
import { Collections } from "../HelpCenter/Collections.js"
import { InboxCreate } from "../Inboxes/Inbox.js"
import { Inboxes } from "../Inboxes/Inboxes.js"
import { Organizations } from "../Organizations/Organizations.js"
import { EMPTY_CRITERIA } from "../PresetFilters/Criteria.js"
import { PresetFilters } from "../PresetFilters/PresetFilters.js"
import { TagCreate } from "../Tags/Tag.js"
import { Tags } from "../Tags/Tags.js"
import { TicketCommands } from "../Tickets/TicketCommands.js"
import { Users } from "../Users/Users.js"

// Demo data goes through the same body schemas as the API, so it is exactly what a client could create.
const wire = <A, I>(schema: Schema.Schema<A, I>, body: unknown) => Schema.decodeUnknown(schema)(body).pipe(Effect.orDie)

const CUSTOMERS = [
  { name: "Ada Lovelace", email: "ada@example.com" },
  { name: "Grace Hopper", email: "grace@example.com" },
  { name: "Alan Turing", email: "alan@example.com" }
]

// Conversations to look at: what a customer wrote in, and the replies (or internal notes) of the owner.
const TICKETS = [
  {
    customer: 0,
    subject: "Cannot log in since the update",
    description: "Hi, since yesterday's update the login page says my password is wrong. I did not change it.",
    priority: "high",
    replies: [
      { role: "associate", content: "Sorry about that! Could you try resetting your password from the login page?" },
      { role: "customer", content: "That worked, thank you. Still odd that it happened." }
    ]
  },
  {
    customer: 1,
    subject: "Invoice for October is missing",
    description: "Our accounting cannot find the October invoice. Could you send it again?",
    priority: "medium",
    replies: [{ role: "associate", content: "Checking with billing: the invoice run failed on the 1st.", note: true }]
  },
  {
    customer: 2,
    subject: "Feature request: export tickets as CSV",
    description: "It would help our weekly report to export the ticket list as a CSV file.",
    priority: "low",
    replies: []
  }
] as const

/**
 * Demo tickets and their messages, written through the same ticket commands as the API, as the customer and as the
 * owner (`caller`): a customer's ticket creates no mail of its own, and the owner's answer is one reply.
 */
const createTickets = (
  organizationId: OrganizationId,
  caller: Caller,
  customerIds: ReadonlyArray<number>,
  inboxId: number
) =>
  Effect.gen(function* () {
    const commands = yield* TicketCommands
    const ids: Array<number> = []
    for (const ticket of TICKETS) {
      const created = yield* commands.create({
        organizationId,
        caller,
        createdByRole: "customer",
        subject: ticket.subject,
        description: ticket.description,
        descriptionHtml: "",
        kind: "text",
        inboxId,
        customer: { _tag: "ById", id: customerIds[ticket.customer]! },
        origin: "email",
        channel: { type: "email", connectionId: null },
        externalRecipientEmails: [],
        bccRecipientEmails: [],
        tagIds: [],
        priority: ticket.priority,
        assigneeId: null,
        attachmentIds: []
      })
      for (const reply of ticket.replies)
        yield* commands.addMessage({
          organizationId,
          caller,
          ticketId: created.id,
          role: reply.role,
          content: reply.content,
          contentHtml: "",
          isVisibleToCustomer: !("note" in reply && reply.note),
          externalRecipientEmails: null,
          bccRecipientEmails: null,
          nextAssigneeId: null,
          nextPriority: null,
          nextAction: "",
          attachmentIds: []
        })
      ids.push(created.id)
    }
    return ids
  }).pipe(Effect.orDie)

/**
 * Creates a demo organization to explore the API with: its owner and the owner's token, a default inbox and a
 * second one, customers, tags, business hours with a holiday, preset filters, a help-center tree and a few
 * tickets with their conversations. `baseUrl` is where the service answers (for the `try` hint; default
 * `http://127.0.0.1:3000`).
 */
export const createDemo = (options: {
  readonly ownerEmail: string
  readonly name?: string
  readonly baseUrl?: string
}) =>
  Effect.gen(function* () {
    const owner = yield* (yield* Users).ensure(options.ownerEmail, "Demo Owner")
    const organization = yield* (yield* Organizations).create({
      name: options.name ?? "Demo Helpdesk",
      createdBy: owner.id
    })
    const organizationId = organization.id
    const token = yield* (yield* Tokens).issuePersonal(owner.id, "demo")

    const inboxes = yield* Inboxes
    const support = yield* inboxes.create(
      organizationId,
      yield* wire(InboxCreate, {
        name: "Support",
        email_prefix: "support",
        auto_reply_outside_enabled: true,
        auto_reply_outside_template: "Thanks {{customer_name}}! We are closed now and reply from {{next_open}}."
      })
    )
    const billing = yield* inboxes.create(
      organizationId,
      yield* wire(InboxCreate, { name: "Billing", email_prefix: "billing" })
    )

    const customers = yield* Customers
    const customerIds: Array<number> = []
    for (const customer of CUSTOMERS)
      customerIds.push((yield* customers.create(organizationId, yield* wire(CustomerCreate, customer))).id)

    const tags = yield* Tags
    for (const [name, color] of [
      ["bug", "#d73a4a"],
      ["billing", "#0e8a16"],
      ["feature request", "#a2eeef"]
    ] as const) {
      yield* tags.create(organizationId, yield* wire(TagCreate, { name, color }))
    }

    const weekday = { opens_at: "09:00", closes_at: "17:30" }
    const hours = yield* (yield* BusinessHours).replace(
      organizationId,
      yield* wire(ScheduleChangeFromBody, {
        timezone: "Europe/Berlin",
        weekly_hours: {
          mon: weekday,
          tue: weekday,
          wed: weekday,
          thu: weekday,
          fri: { opens_at: "09:00", closes_at: "15:00" }
        }
      })
    )
    const exceptions = yield* BusinessHoursExceptions
    yield* exceptions.create(organizationId, { date: "2026-12-25", name: "Christmas Day", repeats_yearly: true })
    yield* exceptions.create(organizationId, {
      date: "2026-12-31",
      name: "New Year's Eve",
      opens_at: "09:00",
      closes_at: "12:00"
    })

    const filters = yield* PresetFilters
    yield* filters.create(organizationId, {
      name: "Waiting on us",
      visibility: "organization",
      criteria: { ...EMPTY_CRITERIA, statuses: ["created", "active"], waiting_on: ["associate"] },
      displayCount: true,
      createdById: owner.id
    })
    yield* filters.create(organizationId, {
      name: "Urgent, mine",
      visibility: "personal",
      criteria: { ...EMPTY_CRITERIA, priorities: ["urgent", "high"], assignee_ids: [owner.id] },
      groupByPriority: true,
      createdById: owner.id
    })

    const collections = yield* Collections
    const articles = yield* Articles
    const gettingStarted = yield* collections.create(
      organizationId,
      yield* wire(CollectionCreate, { name: "Getting started", meta_description: "First steps" })
    )
    const account = yield* collections.create(
      organizationId,
      yield* wire(CollectionCreate, { name: "Your account", parent: gettingStarted.id })
    )
    for (const [collection, title, status] of [
      [gettingStarted.id, "Welcome", "published"],
      [gettingStarted.id, "Contacting support", "published"],
      [account.id, "Resetting your password", "published"],
      [account.id, "Deleting your account", "draft"]
    ] as const) {
      yield* articles.create(organizationId, yield* wire(ArticleCreate, { collection, title, status }))
    }

    const tickets = yield* createTickets(
      organizationId,
      { _tag: "Person", userId: owner.id, tokenId: token.id },
      customerIds,
      support.id
    )

    const baseUrl = options.baseUrl ?? "http://127.0.0.1:3000"
    return {
      organization: { id: Number(organization.id), public_id: organization.publicId, name: organization.name },
      owner: { id: owner.id, email: owner.email },
      token: { id: token.id, kind: token.kind, token: token.token },
      inboxes: [support.id, billing.id],
      tickets,
      business_hours: { timezone: hours.timezone, is_open_now: hours.is_open_now, next_open: hours.next_open },
      try: `curl -H "X-Service-Token: ${token.token}" ${baseUrl}/organizations/${organization.publicId}/tickets/`
    }
  })
