import type { OpenApi } from "@effect/platform"

/**
 * What the served OpenAPI document states beyond what HttpApi generates from the endpoints: the headers the
 * wire conventions add to answers, and a description for every tag. Applied once, as part of the API's
 * `OpenApi.Transform` (decision 0405).
 */

/** The version of the API the document describes (`info.version`). */
export const API_VERSION = "2.1.0"

/** The licence of the service, stated in `info.license`. */
export const API_LICENSE: OpenApi.OpenAPISpecLicense = { name: "MIT", url: "https://opensource.org/license/mit" }

/**
 * One description per tag (a group's `OpenApi.Title`). A group added without one here fails
 * `OpenApiContract.test.ts`.
 */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Health: "Liveness and readiness probes for load balancers and orchestrators; no token needed.",
  Organizations:
    "The caller's organizations, their settings (limits, units, ticket public ids, working language) and creating one.",
  "Custom preset filters":
    "Saved ticket filters: personal ones (their owner only) and organization-shared ones, with their criteria.",
  "Help center": "The help-center portal, its tree of collections and its articles.",
  Customers: "The people tickets come from, their company and their spam flag.",
  Companies: "Customers' companies, their e-mail domains and default assignee, and the customers suggested as members.",
  Inboxes: "Where tickets arrive: e-mail address, auto-replies, inactivity reminders and auto-close, signature.",
  Tags: "Labels for tickets, with an optional colour.",
  "SLA policies":
    "Service-level targets (first reply, next reply, resolution) in business or calendar minutes, by priority, inbox and tags.",
  Tickets:
    "Tickets and their messages: create, read, list and search, update, reply, snooze, merge, and machine enrichment.",
  "Business hours": "The organization's weekly opening hours, its time zone, and dated or yearly exceptions.",
  Attachments: "Uploads for a new ticket (pending until a ticket claims them) or for a reply on a ticket.",
  Downloads: "Signed, expiring links to an attachment's file; the link is its own credential.",
  "Mail tracking": "The read-receipt pixel of outgoing mail; the link is its own credential.",
  "CSAT surveys": "Customer-satisfaction surveys mailed when a ticket closes, read and answered through their link.",
  Members: "The people of an organization (the ids `assignee_id` takes) and their roles: add, change, remove.",
  "Personal tokens": "The calling person's own API tokens: create (the secret shown once), list, revoke.",
  Events:
    "The event log as a product: the organization's change feed (every ticket event once, in order, from a cursor, optionally long-polling) and a ticket's history with readable changes.",
  "Inbound e-mail": "Raw e-mail forwarded by a mail provider's inbound webhook, filed on tickets (integration tokens).",
  Webhooks:
    "Endpoints that receive the organization's ticket events, signed (`X-Helpdesk-Signature`), retried, with a delivery log."
}

const header = (description: string, schema: Record<string, unknown>) => ({ description, required: true, schema })

const LOCATION = header("The absolute URL of the created resource, under the request's base URL.", {
  type: "string",
  format: "uri"
})

const WWW_AUTHENTICATE = header("The scheme to authenticate with: the `X-Service-Token` header.", {
  type: "string",
  const: "X-Service-Token"
})

const X_REQUEST_ID = header(
  "The request's id, as in the service's log line for it (on a 500 also `request_id` in the body): the client's own `X-Request-Id` when it is 1 to 128 of `A-Z a-z 0-9 . _ -`, else a generated UUID.",
  { type: "string", pattern: "^[A-Za-z0-9._-]{1,128}$" }
)

// Answers without the `Location` header: the CSAT answer is the survey page itself, not a new resource.
const WITHOUT_LOCATION: ReadonlySet<string> = new Set(["csat.answer"])

/** Adds the declared headers and tag descriptions to a generated document (mutated and returned). */
// biome-ignore-start lint/suspicious/noExplicitAny: the generated spec is untyped JSON
export const documentContract = (spec: Record<string, any>): Record<string, any> => {
  for (const methods of Object.values(spec.paths ?? {}) as Array<Record<string, any>>) {
    for (const operation of Object.values(methods)) {
      const responses: Record<string, any> = operation?.responses ?? {}
      const created = responses["201"]
      if (created !== undefined && !WITHOUT_LOCATION.has(operation.operationId))
        created.headers = { ...created.headers, Location: LOCATION }
      if (responses["401"] !== undefined)
        responses["401"].headers = { ...responses["401"].headers, "WWW-Authenticate": WWW_AUTHENTICATE }
      // Every answer names its request (decision 0410).
      for (const response of Object.values(responses) as Array<any>)
        if (response !== null && typeof response === "object" && !("$ref" in response))
          response.headers = { ...response.headers, "X-Request-Id": X_REQUEST_ID }
    }
  }
  for (const tag of (spec.tags ?? []) as Array<any>) {
    const description = TAG_DESCRIPTIONS[tag.name]
    if (description !== undefined && tag.description === undefined) tag.description = description
  }
  dropUnusedSchemas(spec)
  return spec
}

// Component schemas nothing refers to any more (what the platform's decode error used, once that is removed).
const dropUnusedSchemas = (spec: Record<string, any>) => {
  const schemas: Record<string, unknown> | undefined = spec.components?.schemas
  if (schemas === undefined) return
  const refsIn = (node: unknown) =>
    [...JSON.stringify(node).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]!)
  const pending = refsIn({ ...spec, components: { ...spec.components, schemas: {} } })
  const used = new Set<string>()
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (used.has(name)) continue
    used.add(name)
    pending.push(...refsIn(schemas[name] ?? {}))
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name]
}

// biome-ignore-end lint/suspicious/noExplicitAny: the generated spec is untyped JSON
