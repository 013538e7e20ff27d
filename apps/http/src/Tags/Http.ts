import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import { parseIntegerIdAs } from "../Http/PathParams.js"
import * as Resource from "../Http/Resource.js"
import { TagResource } from "./Api.js"
import { TagId } from "./Tag.js"
import type { TagNameTaken, TagNotFound } from "./TagErrors.js"
import { Tags } from "./Tags.js"

/** The wire error of a refused tag write. */
export const tagWriteError = (error: TagNotFound | TagNameTaken): NotFound | ValidationError =>
  error._tag === "TagNotFound" ? new NotFound() : ValidationError.field("name", "A tag with this name already exists.")

/** Handlers of the `tags` group. */
export const TagsLive = HttpApiBuilder.group(Api, "tags", (handlers) =>
  Effect.gen(function* () {
    const tags = yield* Tags
    const resource = yield* Resource.handlers(TagResource, {
      permissions: { read: "tags.read", write: "tags.write" },
      parseId: parseIntegerIdAs(TagId.make),
      filters: (urlParams) => Effect.succeed({ search: urlParams.search ?? "" }),
      writeError: tagWriteError,
      repository: tags
    })
    return Resource.handleAll(handlers, resource)
  })
).pipe(Layer.provide([OrganizationAccess.Default, Tags.Default]))
