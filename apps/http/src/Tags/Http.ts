import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import * as Resource from "../Http/Resource.js"
import { TagResource } from "./Api.js"
import type { TagNameTaken, TagNotFound } from "./TagErrors.js"
import { Tags } from "./Tags.js"

/** The wire error of a refused tag write. */
export const tagWriteError = (error: TagNotFound | TagNameTaken): NotFound | ValidationError =>
  error._tag === "TagNotFound" ? new NotFound() : ValidationError.field("name", "A tag with this name already exists.")

/** Handlers of the `tags` group. */
export const TagsLive = HttpApiBuilder.group(Api, "tags", (handlers) =>
  Resource.serve(
    handlers,
    Resource.handlers(TagResource, { filters: Resource.searchFilter, writeError: tagWriteError, repository: Tags })
  )
).pipe(Layer.provide([OrganizationAccess.Default, Tags.Default]))
