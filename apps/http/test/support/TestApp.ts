import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { createHttpServer } from "../../src/Http/ParserErrors.js"
import { HttpAppLive } from "../../src/Server.js"
import { ServicesLive } from "../../src/Services.js"
import { TestDatabaseLive, testDatabaseLive } from "./TestDatabase.js"

/** The running app under test: its base URL (a real server on a free port of 127.0.0.1). */
export class TestApp extends Context.Tag("test/TestApp")<TestApp, { readonly baseUrl: string }>() {}

/**
 * The real application listening on port 0 of 127.0.0.1, and its {@link TestApp}; needs the services and the
 * database it runs on.
 */
export const appServerLive = (options: Parameters<typeof HttpAppLive>[0] = {}) =>
  Layer.effect(
    TestApp,
    Effect.map(HttpServer.HttpServer, (server) => {
      const address = server.address
      if (address._tag !== "TcpAddress") throw new Error("expected a TCP server")
      return { baseUrl: `http://127.0.0.1:${address.port}` }
    })
  ).pipe(
    Layer.provideMerge(HttpAppLive(options)),
    Layer.provideMerge(NodeHttpServer.layer(createHttpServer, { host: "127.0.0.1", port: 0 }))
  )

/**
 * The real application on a fresh migrated database (one per test file, see `TestDatabase.ts`), listening on
 * port 0, plus the repositories for fixtures. Use with `layer(TestAppLive, { excludeTestServices: true })` so
 * the server runs on the real clock.
 */
export const testAppLive = (
  options: Parameters<typeof HttpAppLive>[0] = {},
  database: { readonly connections?: number } = {}
) =>
  appServerLive(options).pipe(
    Layer.provideMerge(ServicesLive),
    Layer.provideMerge(database.connections === undefined ? TestDatabaseLive : testDatabaseLive(database.connections))
  )

/** {@link testAppLive} with these settings over the environment's. */
export const testAppWith = (settings: Record<string, string>) =>
  testAppLive().pipe(
    Layer.provide(
      Layer.setConfigProvider(
        ConfigProvider.fromMap(new Map(Object.entries(settings))).pipe(
          ConfigProvider.orElse(() => ConfigProvider.fromEnv())
        )
      )
    )
  )

/** {@link testAppLive} with the service's defaults. */
export const TestAppLive = testAppLive()

/** A response as a black-box client sees it. */
export interface TestResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON (undefined when empty or not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  readonly body: any
}

/**
 * Asserts a 400 whose body is exactly `errors` (the field errors, decision 0400); `context` (a table's case) leads
 * the failure messages, which show the response as received.
 */
export const assertRefused = (
  response: Pick<TestResponse, "status" | "text" | "body">,
  errors: unknown,
  context?: string
) => {
  const message = context === undefined ? response.text : `${context}: ${response.text}`
  assert.strictEqual(response.status, 400, message)
  assert.deepStrictEqual(response.body, errors, message)
}

/** What to send. `json` and `form` set the body and its content type; `body` sends raw text. */
export interface TestRequest {
  readonly token?: string | undefined
  readonly json?: unknown
  readonly form?: Record<string, string | ReadonlyArray<string>>
  readonly multipart?: Record<string, string | ReadonlyArray<string>>
  readonly body?: string
  readonly contentType?: string
  readonly headers?: Record<string, string>
}

/** Sends a request to the app under test (redirects are not followed). */
export const request = (
  method: string,
  path: string,
  options: TestRequest = {}
): Effect.Effect<TestResponse, never, TestApp> =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    const headers = new Headers(options.headers)
    if (options.token !== undefined) headers.set("x-service-token", options.token)
    let body: string | FormData | undefined
    if (options.json !== undefined) {
      body = JSON.stringify(options.json)
      headers.set("content-type", "application/json")
    } else if (options.form !== undefined) {
      const params = new URLSearchParams()
      for (const [key, value] of Object.entries(options.form))
        for (const v of typeof value === "string" ? [value] : value) params.append(key, v)
      body = params.toString()
      headers.set("content-type", "application/x-www-form-urlencoded")
    } else if (options.multipart !== undefined) {
      const data = new FormData()
      for (const [key, value] of Object.entries(options.multipart))
        for (const v of typeof value === "string" ? [value] : value) data.append(key, v)
      body = data
    } else if (options.body !== undefined) {
      body = options.body
    }
    if (options.contentType !== undefined) headers.set("content-type", options.contentType)
    const response = yield* Effect.promise(() =>
      fetch(new URL(path, baseUrl), { method, headers, body: body ?? null, redirect: "manual" })
    )
    const text = yield* Effect.promise(() => response.text())
    let parsed: unknown
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, text, body: parsed }
  })

/** Shorthands. */
export const get = (path: string, options?: TestRequest) => request("GET", path, options)
export const post = (path: string, options?: TestRequest) => request("POST", path, options)
export const patch = (path: string, options?: TestRequest) => request("PATCH", path, options)
export const put = (path: string, options?: TestRequest) => request("PUT", path, options)
export const del = (path: string, options?: TestRequest) => request("DELETE", path, options)
