import { Config } from "effect"

/**
 * The address customers reach this service at, for absolute links in e-mails (CSAT surveys, read receipts):
 * `PUBLIC_BASE_URL`, or `http://{HOST}:{PORT}` when unset. Without a trailing slash.
 */
export const publicBaseUrl: Config.Config<string> = Config.string("PUBLIC_BASE_URL").pipe(
  Config.orElse(() =>
    Config.all([
      Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
      Config.integer("PORT").pipe(Config.withDefault(3000))
    ]).pipe(Config.map(([host, port]) => `http://${host}:${port}`))
  ),
  Config.map((url) => url.replace(/\/+$/, ""))
)
