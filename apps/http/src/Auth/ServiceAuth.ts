import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import { Unauthorized, Wire } from "../Http/Errors.js"
import { CurrentCaller } from "./CurrentCaller.js"
import { Tokens } from "./Tokens.js"

/** The `X-Service-Token` header scheme, as `/openapi.json` documents it. */
export const serviceToken = HttpApiSecurity.apiKey({ in: "header", key: "X-Service-Token" }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "A personal token (`hd_pat_…`, acts as its user with their role in each organization) or an integration " +
      "token (`hd_int_…`, acts with the role `token` in its one organization). Create them with " +
      "`helpdesk token create`. Missing → 401 `Authentication credentials were not provided.`; unknown, revoked " +
      "or malformed → 401 `Invalid token.`."
  )
)

/**
 * Authenticates every endpoint of a group that uses it (`.middleware(ServiceAuth)`) and provides
 * {@link CurrentCaller} to its handlers.
 */
export class ServiceAuth extends HttpApiMiddleware.Tag<ServiceAuth>()("@helpdesk/http/Auth/ServiceAuth", {
  failure: Wire.Unauthorized,
  provides: CurrentCaller,
  security: { serviceToken }
}) {}

/** The token check behind {@link ServiceAuth}. */
export const ServiceAuthLive = Layer.effect(
  ServiceAuth,
  Effect.gen(function* () {
    const tokens = yield* Tokens
    return ServiceAuth.of({
      // A missing header arrives as an empty value, not as a failure.
      serviceToken: (token) => {
        const value = Redacted.value(token).trim()
        if (value === "") return Effect.fail(Unauthorized.notProvided())
        return tokens
          .authenticate(value)
          .pipe(
            Effect.flatMap(
              Option.match({ onNone: () => Effect.fail(Unauthorized.invalidToken()), onSome: Effect.succeed })
            )
          )
      }
    })
  })
).pipe(Layer.provide(Tokens.Default))
