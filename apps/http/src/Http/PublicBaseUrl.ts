import { Config, ConfigError, Either, Option } from "effect"

/**
 * A configured base URL as links use it: an absolute `http`/`https` URL with a host and no user, query or
 * fragment, reduced to its origin and path prefix without a trailing slash (`https://example.com/helpdesk`).
 */
export const parseBaseUrl = (value: string): Either.Either<string, string> => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return Either.left("must be an absolute URL, e.g. https://help.example.com")
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return Either.left("must start with http:// or https://")
  if (url.hostname === "") return Either.left("must name a host")
  if (url.username !== "" || url.password !== "") return Either.left("must not carry a user or password")
  if (url.search !== "" || url.hash !== "") return Either.left("must not carry a query or fragment")
  return Either.right(`${url.origin}${url.pathname.replace(/\/+$/, "")}`)
}

/**
 * `PUBLIC_BASE_URL` when set (an empty value counts as unset), checked by {@link parseBaseUrl}: a malformed
 * value fails at start-up rather than in the links of every answer.
 */
export const configuredPublicBaseUrl: Config.Config<Option.Option<string>> = Config.string("PUBLIC_BASE_URL").pipe(
  Config.withDefault(""),
  Config.mapOrFail((value) =>
    value.trim() === ""
      ? Either.right(Option.none())
      : Either.map(
          Either.mapLeft(parseBaseUrl(value.trim()), (reason) =>
            ConfigError.InvalidData(["PUBLIC_BASE_URL"], `PUBLIC_BASE_URL ${reason}.`)
          ),
          Option.some
        )
  )
)

/**
 * `TRUST_PROXY=true`: a proxy in front of the service sets `X-Forwarded-Proto` and `X-Forwarded-Host`, so
 * links may follow them. Off by default, when any client could set them.
 */
export const trustProxy: Config.Config<boolean> = Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false))

/** How each request's base URL is decided (`Links.decideBaseUrl`). */
export interface BaseUrlPolicy {
  /** Every absolute link uses this one when set, whatever the request's headers say. */
  readonly publicBaseUrl: Option.Option<string>
  /** Follow `X-Forwarded-Proto`/`X-Forwarded-Host` (when no `publicBaseUrl`). */
  readonly trustProxy: boolean
}

/** The default policy: no public base URL, no trusted proxy (links follow the validated `Host`). */
export const HOST_HEADER_POLICY: BaseUrlPolicy = { publicBaseUrl: Option.none(), trustProxy: false }

/** {@link BaseUrlPolicy} from `PUBLIC_BASE_URL` and `TRUST_PROXY`. */
export const baseUrlPolicy: Config.Config<BaseUrlPolicy> = Config.all({
  publicBaseUrl: configuredPublicBaseUrl,
  trustProxy
})

/**
 * The address customers reach this service at, for absolute links in e-mails (CSAT surveys, read receipts):
 * `PUBLIC_BASE_URL`, or `http://{HOST}:{PORT}` when unset. Without a trailing slash.
 */
export const publicBaseUrl: Config.Config<string> = Config.all([
  configuredPublicBaseUrl,
  Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  Config.integer("PORT").pipe(Config.withDefault(3000))
]).pipe(Config.map(([configured, host, port]) => Option.getOrElse(configured, () => `http://${host}:${port}`)))
