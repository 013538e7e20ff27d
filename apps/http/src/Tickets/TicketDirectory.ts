import { SqlClient, SqlSchema } from "@effect/sql"
import { type CustomerRef, type InboxRef, type OrganizationId, type TagRef, UserRef } from "@helpdesk/domain"
import { Effect, Option, Schema } from "effect"
import { AuthCache } from "../Auth/AuthCache.js"
import { type Customer, CustomerId } from "../Customers/Customer.js"
import { Customers } from "../Customers/Customers.js"
import { dieUndecodable, int8 } from "../Database/Rows.js"
import { type Inbox, InboxId } from "../Inboxes/Inbox.js"
import { Inboxes } from "../Inboxes/Inboxes.js"
import { Tags } from "../Tags/Tags.js"

/** A `users` row decoded as the `<user_ref>` snapshot commands carry. */
const UserRefRow = Schema.Struct({ ...UserRef.fields, id: int8(Schema.Int) })

/** A user lookup's answer: the snapshot or undefined; a database failure or an undecodable row is a defect. */
const orUndefined = <E>(found: Effect.Effect<Option.Option<UserRef>, E>): Effect.Effect<UserRef | undefined> =>
  found.pipe(Effect.map(Option.getOrUndefined), dieUndecodable("users"), Effect.orDie)

/**
 * What tickets look up in the rest of the organization, as the value snapshots the domain's commands carry:
 * inboxes, customers (created on the fly by e-mail), tags, and users (the caller, assignees). Every lookup is
 * scoped to the organization: another organization's id is "not found".
 */
export class TicketDirectory extends Effect.Service<TicketDirectory>()("@helpdesk/http/Tickets/TicketDirectory", {
  dependencies: [AuthCache.Default, Customers.Default, Inboxes.Default, Tags.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cache = yield* AuthCache
    const inboxes = yield* Inboxes
    const customers = yield* Customers
    const tagRepository = yield* Tags

    const inboxRef = (inbox: Inbox): InboxRef => ({
      id: inbox.id,
      name: inbox.name,
      emailPrefix: inbox.emailPrefix,
      customerInteractionStyle: inbox.customerInteractionStyle
    })

    const customerRef = (customer: Customer): CustomerRef => ({
      id: customer.id,
      name: customer.name,
      email: customer.email,
      isSpam: customer.isSpam,
      company: customer.company === null ? null : { id: customer.company.id, name: customer.company.name },
      isCompanyManager: customer.isCompanyManager
    })

    /** The organization's default inbox (provisioned when it has none). */
    const defaultInbox = (organizationId: OrganizationId) => Effect.map(inboxes.defaultFor(organizationId), inboxRef)

    /** An inbox of the organization, or undefined. */
    const inbox = (organizationId: OrganizationId, id: number) =>
      Effect.map(inboxes.findById(organizationId, InboxId.make(id)), (found) =>
        found === undefined ? undefined : inboxRef(found)
      )

    /** A customer of the organization, or undefined. */
    const customer = (organizationId: OrganizationId, id: number) =>
      Effect.map(customers.findById(organizationId, CustomerId.make(id)), (found) =>
        found === undefined ? undefined : customerRef(found)
      )

    /** The customer with this e-mail address (ignoring case), created when new; runs in the caller's transaction. */
    const customerByEmail = (organizationId: OrganizationId, email: string, name: string) =>
      Effect.map(customers.findOrCreateByEmail(organizationId, { email, name }), customerRef)

    /** The organization's tags with these ids, in the order given; `missing` lists ids that are not its tags. */
    const tags = (organizationId: OrganizationId, ids: ReadonlyArray<number>) =>
      Effect.map(tagRepository.findByIds(organizationId, ids), (found) => {
        const known = new Set<number>(found.map((t) => t.id))
        return {
          found: found.map((t): TagRef => ({ id: t.id, name: t.name, color: t.color })),
          missing: [...new Set(ids)].filter((id) => !known.has(id))
        }
      })

    const findUser = SqlSchema.findOne({
      Request: Schema.Number,
      Result: UserRefRow,
      execute: (id) => sql`SELECT id, email, name, profile_picture_url FROM users WHERE id = ${id}`
    })

    /** A user as a `<user_ref>` snapshot, or undefined; a writer's own is kept with the callers (`AuthCache`). */
    const user = (userId: number) => orUndefined(cache.person(userId, findUser(userId)))

    /** A member of the organization (any role) as a `<user_ref>`, or undefined: only members can be assigned. */
    const member = (organizationId: OrganizationId, userId: number) =>
      SqlSchema.findOne({
        Request: Schema.Number,
        Result: UserRefRow,
        execute: (id) => sql`
          SELECT u.id, u.email, u.name, u.profile_picture_url FROM users u
          JOIN memberships m ON m.user_id = u.id AND m.organization_id = ${organizationId}
          WHERE u.id = ${id}`
      })(userId).pipe(orUndefined)

    return { defaultInbox, inbox, customer, customerByEmail, tags, user, member } as const
  })
}) {}
