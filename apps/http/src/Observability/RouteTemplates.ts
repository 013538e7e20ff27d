/** The label of a request whose path matches no route (so that ids never become labels). */
export const UNMATCHED = "unmatched"

/** What a request matched: the route's template (`/organizations/{organization_id}/`) and whether its method is served. */
export interface RouteMatch {
  readonly route: string
  /** False when the path exists with other methods only (the service answers 405). */
  readonly methodServed: boolean
}

interface Node {
  readonly literal: Map<string, Node>
  parameter: Node | undefined
  template: string | undefined
  readonly methods: Set<string>
}

const node = (): Node => ({ literal: new Map(), parameter: undefined, template: undefined, methods: new Set() })

// A literal segment wins over a parameter at the same place, as in the router (`/tickets/search/` before `/tickets/:id/`).
const find = (at: Node, segments: ReadonlyArray<string>, index: number): Node | undefined => {
  if (index === segments.length) return at.template === undefined ? undefined : at
  const segment = segments[index]!
  const literal = at.literal.get(segment)
  const viaLiteral = literal === undefined ? undefined : find(literal, segments, index + 1)
  if (viaLiteral !== undefined) return viaLiteral
  return at.parameter === undefined || segment === "" ? undefined : find(at.parameter, segments, index + 1)
}

/**
 * A matcher of request paths to route templates, from the routes as `HttpApi` declares them (`:name` parameters,
 * written `{name}` in the template). One walk of a segment tree per request; the query string is ignored.
 */
export const routeTemplates = (routes: ReadonlyArray<{ readonly method: string; readonly path: string }>) => {
  const root = node()
  for (const { method, path } of routes) {
    let at = root
    for (const segment of path.split("/")) {
      if (segment.startsWith(":")) at = at.parameter ??= node()
      else {
        const next = at.literal.get(segment) ?? node()
        at.literal.set(segment, next)
        at = next
      }
    }
    at.template = path.replace(/:(\w+)/g, "{$1}")
    at.methods.add(method.toUpperCase())
  }
  return (method: string, url: string): RouteMatch => {
    const queryAt = url.indexOf("?")
    const found = find(root, (queryAt < 0 ? url : url.slice(0, queryAt)).split("/"), 0)
    if (found === undefined) return { route: UNMATCHED, methodServed: false }
    const served = found.methods.has(method) || (method === "HEAD" && found.methods.has("GET"))
    return { route: found.template!, methodServed: served }
  }
}
