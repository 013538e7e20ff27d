import {
  type HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiSchema,
  type HttpServerRequest,
  OpenApi
} from "@effect/platform"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect, Schema } from "effect"
import type { CurrentCaller } from "../Auth/CurrentCaller.js"
import { OrganizationAccess, type OrganizationScope } from "../Auth/OrganizationAccess.js"
import { ACTIONS, type Action } from "../Auth/Permissions.js"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { type Doc, documented } from "./Documented.js"
import { NotFound, type PermissionDenied, type ValidationError, Wire } from "./Errors.js"
import type * as Ordering from "./Ordering.js"
import * as Pagination from "./Pagination.js"
import { type ItemId, OrganizationPath, OrganizationPublicId } from "./PathParams.js"
import type * as Query from "./Query.js"
import * as RequestBody from "./RequestBody.js"
import { created, noContent } from "./Responses.js"

/**
 * A directory resource under `/organizations/{organization_id}/{segment}/`: list (search filters, ordering,
 * paging), create, read, partial update and delete. {@link endpoints} declares its `HttpApiEndpoint`s from its
 * schemas, {@link handlers} implements them over a {@link Repository}; the feature's group adds anything else.
 * The spec also says who may read and write (the roles table's actions of its segment, unless it names others)
 * and how a path segment names an item, so a feature's handlers only add its list filters, its write errors and
 * its repository. A spec states only what departs from convention (see {@link Spec}). The repository may
 * return domain models: the spec's `wire.toWire` (and `wire.created.toWire`) make the wire items.
 */

/** The `HttpApiEndpoint` names of a resource's endpoints (a group holding two resources names them apart). */
export interface Names {
  readonly list: string
  readonly create: string
  readonly get: string
  readonly update: string
  readonly delete: string
}

/** The endpoint names a resource gets unless its spec says otherwise. */
export type DefaultNames = {
  readonly list: "list"
  readonly create: "create"
  readonly get: "get"
  readonly update: "update"
  readonly delete: "delete"
}

const defaultNames: DefaultNames = { list: "list", create: "create", get: "get", update: "update", delete: "delete" }

/**
 * The area a segment's first component names in the roles table, dashes as underscores: `sla-policies` is
 * `sla_policies`, `business-hours/exceptions` is `business_hours`.
 */
type Area<Segment extends string> = Underscored<Segment extends `${infer First}/${string}` ? First : Segment>

type Underscored<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}_${Underscored<Tail>}` : S

/** The role actions of reads and writes; with a list, the role must be allowed one of them (checks refine). */
export interface Permissions {
  readonly read: Action | ReadonlyArray<Action>
  readonly write: Action | ReadonlyArray<Action>
}

/**
 * Whether the roles table has the segment's conventional actions: `<area>.read` and `<area>.write`, or one
 * `<area>.manage` for both (reads and writes go together, as a webhook's).
 */
type Conventional<Segment extends string> = [`${Area<Segment>}.read` | `${Area<Segment>}.write`] extends [Action]
  ? true
  : [`${Area<Segment>}.manage`] extends [Action]
    ? true
    : false

/** A spec states its permissions only where the segment's conventional actions are not them (or do not exist). */
type PermissionsOf<Segment extends string> =
  Conventional<Segment> extends true ? { readonly permissions?: Permissions } : { readonly permissions: Permissions }

/**
 * The item in its endpoints' summaries: `"a tag"` with the segment's last component (`tags`) for the plural makes
 * "List tags", "Create a tag", "Read a tag", "Change a tag" and "Delete a tag"; `{ one, many }` where the plural
 * is not the segment's ("an SLA policy", "SLA policies").
 */
export type Noun = string | { readonly one: string; readonly many: string }

/** A list's query parameters besides ordering and paging. */
type Filters = Record<string, ReturnType<typeof Query.param>>

/** What declares a resource: its path and id, its wire schemas and ordering, and what departs from convention. */
export type Spec<
  Segment extends string,
  IdParam extends string,
  A,
  I,
  C,
  CI,
  U,
  UI,
  F extends Filters,
  M = A,
  R = A,
  RI = I,
  CM = M,
  N extends Names = DefaultNames,
  Id = unknown
> = PermissionsOf<Segment> &
  Declaration<Segment, IdParam, F, N, Id> & { readonly wire: WireSchemas<A, I, C, CI, U, UI, M, R, RI, CM> }

/** What the endpoints read and answer, and how the repository's models become it. */
export interface WireSchemas<A, I, C, CI, U, UI, M, R, RI, CM> {
  readonly item: Schema.Schema<A, I>
  /** The wire item of a repository's model; without it the repository returns wire items. */
  readonly toWire?: (model: M) => A
  readonly create: Schema.Schema<C, CI>
  /** The update body; a resource without one has no `update` endpoint. */
  readonly update?: Schema.Schema<U, UI>
  /** What `create` answers when it is not the item (e.g. the item with a secret shown once). */
  readonly created?: { readonly schema: Schema.Schema<R, RI>; readonly toWire: (model: CM) => R }
}

/** Any spec, for what reads its parts' types from it (as {@link endpoints}). */
type AnySpec = Declaration<string, string, Filters, Names, unknown> & {
  readonly permissions?: Permissions
  readonly wire: {
    readonly item: Schema.Schema.AnyNoContext
    readonly create: Schema.Schema.AnyNoContext
    // A spec without an update body has a `Schema<never, never>` there.
    readonly update?: Schema.Schema.AnyNoContext | Schema.Schema<never, never>
    readonly created?: { readonly schema: Schema.Schema.AnyNoContext }
  }
}

/** A spec but for its permissions (stated only where they are not the segment's) and its wire schemas. */
interface Declaration<Segment extends string, IdParam extends string, F extends Filters, N extends Names, Id> {
  /**
   * Where it lives: `{ segment: "tags", id: integerIdParam("pk", TagId.make) }` is
   * `/organizations/{organization_id}/tags/{pk}/`, `pk` naming the item a `TagId` parses to. The segment's first
   * component names its role actions (`tags.read`, `tags.write`) unless `permissions` says otherwise.
   */
  readonly path: { readonly segment: Segment; readonly id: ItemId<IdParam, Id> }
  readonly noun: Noun
  /** Endpoint names other than `list`, `create`, `get`, `update` and `delete` (see {@link suffixed}). */
  readonly names?: N
  /** Query parameters of the list besides ordering and paging; none when left out. */
  readonly filters?: F
  /**
   * The orderings a client may ask for (the `ordering` parameter), or one fixed `Ordering` (no parameter), as
   * `Ordering.fixed("id")`.
   */
  readonly ordering: Ordering.OrderingSpec<string> | Ordering.Ordering<string>
  /**
   * Each endpoint's OpenAPI description (a string), or `{ summary, description }` where the noun's summary does
   * not say it.
   */
  readonly docs?: { readonly [K in keyof Names]?: string | Partial<Doc> }
}

/**
 * The endpoint names of one of a group's several resources: `suffixed("Collection")` is `listCollections`,
 * `createCollection`, `getCollection`, `updateCollection` and `deleteCollection`.
 */
export const suffixed = <const Suffix extends string>(suffix: Suffix) => ({
  list: `list${suffix}s` as const,
  create: `create${suffix}` as const,
  get: `get${suffix}` as const,
  update: `update${suffix}` as const,
  delete: `delete${suffix}` as const
})

/** The spec's permissions, or the conventional actions of its segment's area in the roles table. */
export const permissionsOf = (spec: {
  readonly path: { readonly segment: string }
  readonly permissions?: Permissions
}): Permissions => {
  if (spec.permissions !== undefined) return spec.permissions
  const area = spec.path.segment.split("/")[0]!.replaceAll("-", "_")
  const [read, write, manage] = [`${area}.read`, `${area}.write`, `${area}.manage`] as Array<Action>
  if (ACTIONS.includes(read) && ACTIONS.includes(write)) return { read, write }
  if (ACTIONS.includes(manage)) return { read: manage, write: manage }
  throw new Error(`The roles table has no actions for "${spec.path.segment}": the spec must declare its permissions`)
}

/** Declares a resource (identity function that fixes the type parameters). */
export const make = <
  const Segment extends string,
  const IdParam extends string,
  A,
  I,
  C,
  CI,
  U = never,
  UI = never,
  F extends Filters = {},
  M = A,
  R = A,
  RI = I,
  CM = M,
  const N extends Names = DefaultNames,
  Id = unknown
>(
  spec: Spec<Segment, IdParam, A, I, C, CI, U, UI, F, M, R, RI, CM, N, Id>
): Spec<Segment, IdParam, A, I, C, CI, U, UI, F, M, R, RI, CM, N, Id> => spec

/** An endpoint's summary from the spec's noun, and its description, unless the spec's docs say otherwise. */
const doc = (spec: Pick<AnySpec, "path" | "noun" | "docs">, name: keyof Names): Doc => {
  const { one, many } =
    typeof spec.noun === "string"
      ? { one: spec.noun, many: spec.path.segment.split("/").at(-1)!.replaceAll("-", " ") }
      : spec.noun
  const summaries = {
    list: `List ${many}`,
    create: `Create ${one}`,
    get: `Read ${one}`,
    update: `Change ${one}`,
    delete: `Delete ${one}`
  }
  const given = spec.docs?.[name]
  return { summary: summaries[name], ...(typeof given === "string" ? { description: given } : given) }
}

/** The client-chosen ordering's query parameter, if the list has one. */
const orderingParams = (ordering: Ordering.OrderingSpec<string> | Ordering.Ordering<string>) =>
  "parse" in ordering ? ordering.params : {}

/**
 * The resource's endpoints under the spec's names (generic over the spec as a whole: their types are read from
 * its parts', so the spec's type parameters are declared on `Spec` and `make` only): `list`, `create`, `get`, `update` (undefined, also in its
 * type, when the spec has no update body) and `delete`.
 */
export const endpoints = <S extends AnySpec>(spec: S) => {
  type IdParam = S["path"]["id"]["param"]
  type N = NonNullable<S["names"]>
  type Update = NonNullable<S["wire"]["update"]>
  const collection = `/organizations/:organization_id/${spec.path.segment}/` as const
  const member = `${collection}:${spec.path.id.param}/` as const
  const ItemPath = Schema.Struct({ organization_id: OrganizationPublicId }).pipe(
    Schema.extend(
      Schema.Struct({ [spec.path.id.param]: spec.path.id.schema } as { [K in IdParam]: Schema.Schema<string> })
    )
  )
  const ListParams = Schema.Struct({
    ...(spec.filters as NonNullable<S["filters"]>),
    ...(orderingParams(spec.ordering) as Ordering.OrderingSpec<string>["params"]),
    ...Pagination.params
  })
  const names = (spec.names ?? defaultNames) as N
  const update = HttpApiEndpoint.patch(names.update as N["update"], member)
    .setPath(ItemPath)
    .setPayload(spec.wire.update as Extract<Update, Schema.Schema.AnyNoContext>)
    .addSuccess(spec.wire.item)
    .annotateContext(documented(doc(spec, "update")))
  return {
    list: HttpApiEndpoint.get(names.list as N["list"], collection)
      .setPath(OrganizationPath)
      // Every field is a `Query.param` (string-encoded), which the generic check cannot see through.
      .setUrlParams<typeof ListParams>(ListParams as never)
      .addSuccess(Pagination.Envelope(spec.wire.item))
      .annotateContext(documented(doc(spec, "list"))),
    create: HttpApiEndpoint.post(names.create as N["create"], collection)
      .setPath(OrganizationPath)
      .setPayload(spec.wire.create)
      .addSuccess((spec.wire.created?.schema ?? spec.wire.item) as NonNullable<S["wire"]["created"]>["schema"], {
        status: 201
      })
      .annotateContext(documented(doc(spec, "create"))),
    get: HttpApiEndpoint.get(names.get as N["get"], member)
      .setPath(ItemPath)
      .addSuccess(spec.wire.item)
      .annotateContext(documented(doc(spec, "get"))),
    update: (spec.wire.update === undefined ? undefined : update) as [Schema.Schema.Type<Update>] extends [never]
      ? undefined
      : typeof update,
    delete: HttpApiEndpoint.del(names.delete as N["delete"], member)
      .setPath(ItemPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotateContext(documented(doc(spec, "delete")))
  }
}

/**
 * A group named `id` with a resource's {@link endpoints}: `list`, `create`, `get`, `update` (for a spec with an
 * update body) and, unless `options.delete` is false (a resource never deleted), `delete`, behind the service's
 * authentication, answering 403 where the role may not act, tagged `title` in OpenAPI; add the feature's other
 * endpoints to it. It takes the endpoints, not the spec: only {@link endpoints} reads the types of the spec's parts.
 */
export const group = <
  const Id extends string,
  List extends HttpApiEndpoint.HttpApiEndpoint.Any,
  Create extends HttpApiEndpoint.HttpApiEndpoint.Any,
  Get extends HttpApiEndpoint.HttpApiEndpoint.Any,
  Update extends HttpApiEndpoint.HttpApiEndpoint.Any | undefined,
  Delete extends HttpApiEndpoint.HttpApiEndpoint.Any,
  const WithDelete extends boolean = true
>(
  id: Id,
  resource: {
    readonly list: List
    readonly create: Create
    readonly get: Get
    readonly update: Update
    readonly delete: Delete
  },
  title: string,
  options?: { readonly delete: WithDelete }
) => {
  const withoutDelete = HttpApiGroup.make(id)
    .add(resource.list)
    .add(resource.create)
    .add(resource.get)
    .add(resource.update as NonNullable<Update>)
  const guardedWithout = () => guarded(withoutDelete, title)
  const guardedWith = () => guarded(withoutDelete.add(resource.delete), title)
  // The conditional type follows the runtime choice, so a caller's `{ delete: false }` group has no `delete`.
  return (options?.delete === false ? guardedWithout() : guardedWith()) as [WithDelete] extends [false]
    ? ReturnType<typeof guardedWithout>
    : ReturnType<typeof guardedWith>
}

/**
 * A group behind the service's authentication, answering 403 where the role may not act, tagged `title` in
 * OpenAPI: {@link group}'s guard, for any group that is not one resource's endpoints (several resources, as the
 * help center's, or endpoints that are not a resource's, as the organizations').
 */
export const guarded = <Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>,
  title: string
) => group.addError(Wire.PermissionDenied).middleware(ServiceAuth).annotate(OpenApi.Title, title)

/**
 * The storage a resource's handlers need, scoped by the organization's internal id. Its effects may read the
 * `CurrentCaller` (e.g. to show each caller only what they may see). `M` is the stored model, `CM` what `create`
 * returns (the model by default).
 */
export interface Repository<M extends { readonly id: Id }, Id, C, U, Query, E, CM extends { readonly id: Id } = M> {
  readonly findById: (organizationId: OrganizationId, id: Id) => Effect.Effect<M | undefined, never, CurrentCaller>
  readonly list: (
    organizationId: OrganizationId,
    query: Query & { readonly ordering: Ordering.Ordering<string> }
  ) => Pagination.PagedQuery<M, never, CurrentCaller>
  readonly create: (organizationId: OrganizationId, input: C) => Effect.Effect<CM, E, CurrentCaller>
  readonly update?: (organizationId: OrganizationId, id: Id, changes: U) => Effect.Effect<M, E, CurrentCaller>
  readonly remove?: (organizationId: OrganizationId, id: Id) => Effect.Effect<void, E, CurrentCaller>
}

/** A refusal of a check: 400, 403 or 404 in the documented shapes. */
export type Refusal = NotFound | PermissionDenied | ValidationError

/** How a resource's handlers reach its repository: its list filters, the wire errors of its writes, its checks. */
export interface Binding<
  M extends { readonly id: Id },
  Id,
  C,
  U,
  Query,
  E,
  UrlParams,
  CM extends { readonly id: Id } = M,
  WE = NotFound | ValidationError,
  RR = never
> {
  /**
   * The repository's list filters from the request's query parameters (checked before the ordering); they may
   * read the `CurrentCaller` (e.g. to list only what the caller sees).
   */
  readonly filters: (urlParams: UrlParams) => Effect.Effect<Query, ValidationError, CurrentCaller>
  /** The wire error of a refused write (404 or 400, or another the feature's group declares, such as 409). */
  readonly writeError: (error: E) => WE
  /**
   * Rules beyond the roles table, run once the body is decoded (and the item found) and before the repository
   * writes: e.g. who may change whose item, or that the ids a body names exist.
   */
  readonly checks?: {
    readonly create?: (scope: OrganizationScope, input: C) => Effect.Effect<void, Refusal, CurrentCaller>
    readonly update?: (scope: OrganizationScope, item: M, changes: U) => Effect.Effect<void, Refusal, CurrentCaller>
    readonly delete?: (scope: OrganizationScope, item: M) => Effect.Effect<void, Refusal, CurrentCaller>
  }
  /** The repository, or the service that is one (e.g. `Tags`), yielded when the handlers are made. */
  readonly repository:
    | Repository<M, Id, C, U, Query, E, CM>
    | Effect.Effect<Repository<M, Id, C, U, Query, E, CM>, never, RR>
}

/** The list filters of a resource whose list takes none. */
export const noFilters = (): Effect.Effect<{}> => Effect.succeed({})

/** The list filters of a resource whose list is searched by keywords (`search`, empty when absent). */
export const searchFilter = (urlParams: { readonly search?: string | undefined }) =>
  Effect.succeed({ search: urlParams.search ?? "" })

/**
 * The handlers of a resource's endpoints, for `handlers.handle("list", h.list).handleRaw("create", h.create)…`
 * (create, update and delete read the body themselves so its errors keep the documented shape), and for the
 * group's other endpoints `scoped`, the caller's scope and the item a path names, and `existing`, the stored item
 * a path segment names or 404.
 */
export const handlers = <
  Segment extends string,
  IdParam extends string,
  A,
  I,
  C,
  CI,
  U,
  UI,
  F extends Filters,
  M extends { readonly id: Id },
  R,
  RI,
  CM extends { readonly id: Id },
  Id,
  Query,
  E,
  N extends Names,
  WE = NotFound | ValidationError,
  RR = never
>(
  spec: Spec<Segment, IdParam, A, I, C, CI, U, UI, F, M, R, RI, CM, N, Id>,
  binding: Binding<NoInfer<M>, Id, C, U, Query, E, Schema.Struct.Type<F>, NoInfer<CM>, WE, RR>
) =>
  Effect.gen(function* () {
    const access = yield* OrganizationAccess
    const { checks } = binding
    const repository = Effect.isEffect(binding.repository) ? yield* binding.repository : binding.repository
    const permissions = permissionsOf(spec)
    // Without `toWire` the spec's types make the model the wire item.
    const toWire = spec.wire.toWire ?? ((model: M) => model as unknown as A)
    const createdSchema = (spec.wire.created?.schema ?? spec.wire.item) as Schema.Schema<R, RI>
    const createdToWire = spec.wire.created?.toWire ?? ((model: CM) => toWire(model as unknown as M) as unknown as R)

    // A malformed id names nothing: 404, as an unknown one.
    const existing = (organizationId: OrganizationId, segment: string) =>
      Effect.gen(function* () {
        const id = spec.path.id.parse(segment)
        const item = id === undefined ? undefined : yield* repository.findById(organizationId, id)
        if (item === undefined) return yield* new NotFound()
        return item
      })

    type ItemRequest = {
      readonly path: { readonly organization_id: string } & { readonly [K in IdParam]: string }
      readonly request: HttpServerRequest.HttpServerRequest
    }

    /**
     * The caller's scope in the path's organization, once their role may `read` (or `write`) the resource there,
     * and the item the path names (404): how every item endpoint starts, the group's own ones too.
     */
    const scoped = (path: ItemRequest["path"], operation: "read" | "write") =>
      Effect.gen(function* () {
        const scope = yield* access.require(path.organization_id, permissions[operation])
        return { scope, item: yield* existing(scope.organizationId, path[spec.path.id.param]) }
      })

    const list = (input: {
      readonly path: { readonly organization_id: string }
      readonly request: HttpServerRequest.HttpServerRequest
      readonly urlParams: Schema.Struct.Type<F> & {
        readonly ordering?: string | undefined
        readonly page?: string | undefined
        readonly page_size?: string | undefined
      }
    }) =>
      Effect.gen(function* () {
        const scope = yield* access.require(input.path.organization_id, permissions.read)
        const filters = yield* binding.filters(input.urlParams)
        const ordering = "parse" in spec.ordering ? yield* spec.ordering.parse(input.urlParams.ordering) : spec.ordering
        const page = yield* Pagination.parse(input.urlParams)
        const result = yield* Pagination.paginate(
          input.request,
          page,
          repository.list(scope.organizationId, { ...filters, ordering })
        )
        return spec.wire.toWire === undefined
          ? (result as unknown as Pagination.Page<A>)
          : { ...result, results: result.results.map(spec.wire.toWire) }
      })

    const create = (input: {
      readonly path: { readonly organization_id: string }
      readonly request: HttpServerRequest.HttpServerRequest
    }) =>
      Effect.gen(function* () {
        const scope = yield* access.require(input.path.organization_id, permissions.write)
        const body = yield* RequestBody.decode(input.request, spec.wire.create)
        if (checks?.create !== undefined) yield* checks.create(scope, body)
        const item = yield* repository.create(scope.organizationId, body).pipe(Effect.mapError(binding.writeError))
        return yield* created(
          input.request,
          createdSchema,
          createdToWire(item),
          `/organizations/${scope.publicId}/${spec.path.segment}/${String(item.id)}/`
        )
      })

    const get = (input: Pick<ItemRequest, "path">) => Effect.map(scoped(input.path, "read"), ({ item }) => toWire(item))

    const update = (input: ItemRequest) =>
      Effect.gen(function* () {
        const { scope, item } = yield* scoped(input.path, "write")
        // A resource without `update` declares no update endpoint; answer as for an unknown route.
        if (spec.wire.update === undefined || repository.update === undefined) return yield* new NotFound()
        const changes = yield* RequestBody.decode(input.request, spec.wire.update)
        if (checks?.update !== undefined) yield* checks.update(scope, item, changes)
        const updated = yield* repository
          .update(scope.organizationId, item.id, changes)
          .pipe(Effect.mapError(binding.writeError))
        return toWire(updated)
      })

    const remove = (input: Pick<ItemRequest, "path">) =>
      Effect.gen(function* () {
        const { scope, item } = yield* scoped(input.path, "write")
        // A resource without `remove` declares no delete endpoint; answer as for an unknown route.
        if (repository.remove === undefined) return yield* new NotFound()
        if (checks?.delete !== undefined) yield* checks.delete(scope, item)
        yield* repository.remove(scope.organizationId, item.id).pipe(Effect.mapError(binding.writeError))
        return noContent
      })

    return { list, create, get, update, delete: remove, existing, scoped } as const
  })

/** The names of a resource's five endpoints. */
type FiveNames = "list" | "create" | "get" | "update" | "delete"

/** A resource's five handlers, as {@link handlers} makes them. */
export type FiveHandlers = {
  readonly [K in FiveNames]: (input: never) => Effect.Effect<unknown, unknown, CurrentCaller>
}

/**
 * Registers a resource's handlers on its group's `handlers` under the default endpoint names, for those of the
 * five the group declares (a resource without delete has no `delete` endpoint): `handle` for list and get,
 * `handleRaw` for the writes (they read their own body). The endpoints and the handlers are made from the same
 * spec, so they agree by construction; add the group's other handlers to the result.
 */
export const handleAll = <E, Provides, R, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any>(
  group: HttpApiBuilder.Handlers<E, Provides, R, Endpoints>,
  resource: FiveHandlers
): HttpApiBuilder.Handlers<E, Provides, R, HttpApiEndpoint.HttpApiEndpoint.ExcludeName<Endpoints, FiveNames>> => {
  type Untyped = {
    readonly group: { readonly endpoints: Readonly<Record<string, unknown>> }
    readonly handle: (name: FiveNames, handler: FiveHandlers[FiveNames]) => Untyped
    readonly handleRaw: (name: FiveNames, handler: FiveHandlers[FiveNames]) => Untyped
  }
  const declared = (group as unknown as Untyped).group.endpoints
  const registered = (["list", "create", "get", "update", "delete"] as const)
    .filter((name) => name in declared)
    .reduce(
      (handlers, name) =>
        name === "list" || name === "get"
          ? handlers.handle(name, resource[name])
          : handlers.handleRaw(name, resource[name]),
      group as unknown as Untyped
    )
  return registered as unknown as HttpApiBuilder.Handlers<
    E,
    Provides,
    R,
    HttpApiEndpoint.HttpApiEndpoint.ExcludeName<Endpoints, FiveNames>
  >
}

/**
 * Registers the handlers of a group that is one resource's endpoints, made by {@link handlers}: the whole of
 * such a feature's `HttpApiBuilder.group`.
 */
export const serve = <E, Provides, R, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, HE, HR>(
  group: HttpApiBuilder.Handlers<E, Provides, R, Endpoints>,
  resource: Effect.Effect<FiveHandlers, HE, HR>
) => Effect.map(resource, (made) => handleAll(group, made))
