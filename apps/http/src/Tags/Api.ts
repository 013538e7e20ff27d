import { Schema } from "effect"
import { integerIdParam } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import * as Resource from "../Http/Resource.js"
import { TagCreate, TagId, TagUpdate } from "./Tag.js"
import { TagOrdering } from "./Tags.js"

/** A tag as the API shows it, and as tickets embed it in `tags`: the model itself, so no mapping is needed. */
export const TagWire = Schema.Struct({
  id: TagId,
  name: Schema.String,
  color: Schema.String.annotations({ description: '`#rrggbb` (lowercase), or `""` when the tag has none.' })
}).annotations({ identifier: "Tag" })

/** Tags as a directory resource: `/organizations/{organization_id}/tags/{pk}/`. */
export const TagResource = Resource.make({
  path: { segment: "tags", id: integerIdParam("pk", TagId.make) },
  noun: "a tag",
  wire: { item: TagWire, create: TagCreate, update: TagUpdate },
  filters: Query.search("name, ignoring case"),
  ordering: TagOrdering,
  docs: {
    create:
      'Owners, admins and integration tokens. `name` is required (at most 100 characters) and unique in the organization ignoring case; `color` is optional, `#rrggbb` (stored lowercase) or `""`. Answers 201 with a `Location` header.',
    update: { summary: "Rename or recolor a tag" },
    delete: "Answers 204. Tickets no longer show the tag."
  }
})

/** `/organizations/{organization_id}/tags/`: ticket tags of an organization. */
export class TagsApi extends Resource.group("tags", Resource.endpoints(TagResource), "Tags") {}
