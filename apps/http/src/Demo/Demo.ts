import { Effect, Schema } from "effect"
import { Tokens } from "../Auth/Tokens.js"
import { BusinessHours } from "../BusinessHours/BusinessHours.js"
import { BusinessHoursExceptions } from "../BusinessHours/BusinessHoursExceptions.js"
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
import { Users } from "../Users/Users.js"

// Demo data goes through the same body schemas as the API, so it is exactly what a client could create.
const wire = <A, I>(schema: Schema.Schema<A, I>, body: unknown) => Schema.decodeUnknown(schema)(body).pipe(Effect.orDie)

const CUSTOMERS = [
  { name: "Ada Lovelace", email: "ada@example.com" },
  { name: "Grace Hopper", email: "grace@example.com" },
  { name: "Alan Turing", email: "alan@example.com" }
]

/**
 * Creates a demo organization to explore the API with: its owner and the owner's token, a default inbox and a
 * second one, customers, tags, business hours with a holiday, preset filters and a help-center tree.
 */
export const createDemo = (options: { readonly ownerEmail: string; readonly name?: string }) =>
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
    for (const customer of CUSTOMERS) yield* customers.create(organizationId, yield* wire(CustomerCreate, customer))

    const tags = yield* Tags
    for (const [name, color] of [
      ["bug", "#d73a4a"],
      ["billing", "#0e8a16"],
      ["feature request", "#a2eeef"]
    ] as const) {
      yield* tags.create(organizationId, yield* wire(TagCreate, { name, color }))
    }

    const weekday = { opens_at: "09:00", closes_at: "17:30" }
    const hours = yield* (yield* BusinessHours).replace(organizationId, {
      timezone: "Europe/Berlin",
      weekly_hours: {
        mon: weekday,
        tue: weekday,
        wed: weekday,
        thu: weekday,
        fri: { opens_at: "09:00", closes_at: "15:00" }
      }
    })
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

    return {
      organization: { id: organization.id, public_id: organization.public_id, name: organization.name },
      owner: { id: owner.id, email: owner.email },
      token: token.token,
      inboxes: [support.id, billing.id],
      business_hours: { timezone: hours.timezone, is_open_now: hours.is_open_now, next_open: hours.next_open },
      try: `curl -H "X-Service-Token: ${token.token}" http://127.0.0.1:3000/organizations/${organization.public_id}/inboxes/`
    }
  })
