import { randomUUID } from "node:crypto"

/** The response header (and log field `request_id`) that names a request (docs/decisions/0410-request-logs.md). */
export const REQUEST_ID_HEADER = "x-request-id"

// What a client's own id may be: short and free of anything a log or header could misread.
const ACCEPTED = /^[A-Za-z0-9._-]{1,128}$/

/** The client's `X-Request-Id` when it is sane (1–128 of `[A-Za-z0-9._-]`), else a fresh UUID. */
export const decideRequestId = (incoming: string | undefined): string =>
  incoming !== undefined && ACCEPTED.test(incoming) ? incoming : randomUUID()
