import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound } from "../Http/Errors.js"
import { parseIntegerId } from "../Http/PathParams.js"
import * as Resource from "../Http/Resource.js"
import { SlaPolicyResource } from "./Api.js"
import { SlaPolicies } from "./SlaPolicies.js"

/** Handlers of the `slaPolicies` group; the repository recomputes the tickets' due times on every change. */
export const SlaPoliciesLive = HttpApiBuilder.group(Api, "slaPolicies", (handlers) =>
  Effect.gen(function* () {
    const resource = yield* Resource.handlers(SlaPolicyResource, {
      permissions: { read: "sla_policies.read", write: "sla_policies.write" },
      parseId: parseIntegerId,
      filters: () => Effect.succeed({}),
      writeError: () => new NotFound(),
      repository: yield* SlaPolicies
    })
    return Resource.handleAll(handlers, resource)
  })
).pipe(Layer.provide([OrganizationAccess.Default, SlaPolicies.Default]))
