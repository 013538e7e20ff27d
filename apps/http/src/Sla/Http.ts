import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound } from "../Http/Errors.js"
import * as Resource from "../Http/Resource.js"
import { SlaPolicyResource } from "./Api.js"
import { SlaPolicies } from "./SlaPolicies.js"

/** Handlers of the `slaPolicies` group; the repository recomputes the tickets' due times on every change. */
export const SlaPoliciesLive = HttpApiBuilder.group(Api, "slaPolicies", (handlers) =>
  Resource.serve(
    handlers,
    Resource.handlers(SlaPolicyResource, {
      filters: Resource.noFilters,
      writeError: () => new NotFound(),
      repository: SlaPolicies
    })
  )
).pipe(Layer.provide([OrganizationAccess.Default, SlaPolicies.Default]))
