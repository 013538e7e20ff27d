import { Schema } from "effect"

/** No webhook with this id in the organization. */
export class WebhookNotFound extends Schema.TaggedError<WebhookNotFound>()("WebhookNotFound", { id: Schema.Number }) {}

/** The URL may not be a webhook's: not http(s), or a loopback, private or link-local address. */
export class WebhookUrlRefused extends Schema.TaggedError<WebhookUrlRefused>()("WebhookUrlRefused", {
  reason: Schema.String
}) {}
