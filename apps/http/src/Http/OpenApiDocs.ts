import { createHash } from "node:crypto"
import { gzipSync } from "node:zlib"
import {
  HttpApi,
  HttpApiBuilder,
  type HttpApiGroup,
  HttpApiSwagger,
  HttpLayerRouter,
  HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { configuredPublicBaseUrl } from "./PublicBaseUrl.js"

/**
 * `/openapi.json` and `/docs` (Swagger UI), each rendered, gzipped and hashed once at start, then answered with a
 * strong `ETag` (`If-None-Match` → `304`), `Cache-Control: no-cache` (revalidate, never stale after an upgrade)
 * and gzip when `Accept-Encoding` allows it. The document's `servers` is `PUBLIC_BASE_URL` when set, else `/`
 * (the origin the document was fetched from). Decision 0405.
 */

/** A precomputed answer: the body as is and gzipped, with their entity tags. */
export interface StaticDocument {
  readonly contentType: string
  readonly identity: Uint8Array
  readonly gzip: Uint8Array
  readonly etag: string
  readonly gzipEtag: string
}

/** Renders, gzips and tags a body once. The gzip variant has its own tag: a strong tag names one byte sequence. */
export const staticDocument = (contentType: string, body: string): StaticDocument => {
  const identity = new TextEncoder().encode(body)
  const digest = createHash("sha256").update(identity).digest("base64url").slice(0, 32)
  return {
    contentType,
    identity,
    gzip: gzipSync(identity, { level: 9 }),
    etag: `"${digest}"`,
    gzipEtag: `"${digest}-gzip"`
  }
}

/** Whether `Accept-Encoding` admits gzip: listed (or `*`) with a non-zero quality, not refused by name. */
export const acceptsGzip = (header: string | undefined): boolean => {
  if (header === undefined) return false
  let star: boolean | undefined
  for (const part of header.split(",")) {
    const [coding = "", ...params] = part.trim().toLowerCase().split(";")
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
    const allowed = q === undefined || Number(q.slice(2)) > 0
    if (coding.trim() === "gzip" || coding.trim() === "x-gzip") return allowed
    if (coding.trim() === "*") star = allowed
  }
  return star === true
}

// If-None-Match lists entity tags (weak comparison, RFC 9110 §13.1.2) or `*`; either variant's tag names the
// same content, so both revalidate.
const matches = (header: string | undefined, document: StaticDocument) => {
  if (header === undefined) return false
  return header.split(",").some((raw) => {
    const tag = raw.trim().replace(/^W\//, "")
    return tag === "*" || tag === document.etag || tag === document.gzipEtag
  })
}

/** Answers a GET of a precomputed document: `304`, gzip or identity. */
export const serveDocument = (document: StaticDocument) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const gzip = acceptsGzip(request.headers["accept-encoding"])
    const headers = {
      etag: gzip ? document.gzipEtag : document.etag,
      "cache-control": "no-cache",
      vary: "Accept-Encoding"
    }
    if (matches(request.headers["if-none-match"], document)) return HttpServerResponse.empty({ status: 304, headers })
    return HttpServerResponse.uint8Array(gzip ? document.gzip : document.identity, {
      contentType: document.contentType,
      headers: gzip ? { ...headers, "content-encoding": "gzip" } : headers
    })
  })

// The Swagger UI page as the platform renders it for an API, taken from its route handler once.
const swaggerPage = (api: HttpApi.HttpApi.Any) =>
  Effect.gen(function* () {
    let page: Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined
    const capture = {
      add: (_method: string, _path: string, handler: Effect.Effect<HttpServerResponse.HttpServerResponse>) =>
        Effect.sync(() => {
          page = handler
        })
    } as unknown as HttpLayerRouter.HttpRouter
    yield* Layer.build(HttpApiSwagger.layerHttpLayerRouter({ api, path: "/docs" })).pipe(
      Effect.provideService(HttpLayerRouter.HttpRouter, capture),
      Effect.scoped
    )
    const response = yield* page ?? Effect.dieMessage("the Swagger UI layer registered no page")
    return response.body._tag === "Uint8Array"
      ? new TextDecoder().decode(response.body.body)
      : yield* Effect.dieMessage("the Swagger UI page is not a byte body")
  })

/** The API as served: its document states where it is served (`PUBLIC_BASE_URL`, else relative `/`). */
export const servedApi = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  publicBaseUrl: Option.Option<string>
): HttpApi.HttpApi<Id, Groups, E, R> =>
  api.annotate(OpenApi.Servers, [
    Option.match(publicBaseUrl, {
      onNone: () => ({ url: "/", description: "The origin this document was fetched from." }),
      onSome: (url) => ({ url, description: "The service's public address (`PUBLIC_BASE_URL`)." })
    })
  ])

/**
 * Serves `/openapi.json` and `/docs` for the API of `HttpApiBuilder.api` (replaces the platform's
 * `middlewareOpenApi` and `HttpApiSwagger.layer`, which render on every build and send neither gzip nor ETag).
 */
export const OpenApiDocsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const { api } = yield* HttpApi.Api
    const publicBaseUrl = yield* configuredPublicBaseUrl
    const served = servedApi(api, publicBaseUrl)
    const spec = staticDocument("application/json", JSON.stringify(OpenApi.fromApi(served)))
    const docs = staticDocument("text/html; charset=utf-8", yield* swaggerPage(served))
    yield* router.get("/openapi.json", serveDocument(spec))
    yield* router.get("/docs", serveDocument(docs))
  })
)
