import { Schema } from "effect"

/** No inbox with this id in the organization. */
export class InboxNotFound extends Schema.TaggedError<InboxNotFound>()("InboxNotFound", { id: Schema.Number }) {}

/** Another inbox of the organization already uses this e-mail prefix. */
export class EmailPrefixTaken extends Schema.TaggedError<EmailPrefixTaken>()("EmailPrefixTaken", {
  emailPrefix: Schema.String
}) {}

/** The default inbox cannot stop being the default except by making another inbox the default. */
export class DefaultInboxRequired extends Schema.TaggedError<DefaultInboxRequired>()("DefaultInboxRequired", {
  id: Schema.Number
}) {}
