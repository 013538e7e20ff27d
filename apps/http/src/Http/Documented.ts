import { OpenApi } from "@effect/platform"

/** An endpoint's OpenAPI summary and optional description. */
export interface Doc {
  readonly summary: string
  readonly description?: string
}

/**
 * The OpenAPI annotations of an endpoint's {@link Doc}, for `endpoint.annotateContext(documented(doc))`: a group
 * keeps its endpoints' texts in one table instead of a summary and description chain per endpoint.
 */
export const documented = (doc: Doc) => OpenApi.annotations({ summary: doc.summary, description: doc.description })
