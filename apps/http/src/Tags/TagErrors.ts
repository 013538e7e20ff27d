import { Schema } from "effect"

/** No tag with this id in the organization. */
export class TagNotFound extends Schema.TaggedError<TagNotFound>()("TagNotFound", { id: Schema.Number }) {}

/** Another tag of the organization has this name (compared ignoring case). */
export class TagNameTaken extends Schema.TaggedError<TagNameTaken>()("TagNameTaken", { name: Schema.String }) {}
