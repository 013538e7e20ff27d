import type { Role } from "../Auth/CurrentCaller.js"
import { type Action, allows, deniedDetail } from "../Auth/Permissions.js"
import type { Visibility } from "./PresetFilter.js"
import type { FilterViewer } from "./PresetFilters.js"

/**
 * Who may create, change and delete which preset filters (docs/decisions/0600-preset-filter-visibility.md); the
 * roles are the rows `preset_filters.write_personal` and `preset_filters.write_shared` of `Auth/Permissions.ts`:
 *
 * - Personal filters belong to their creator alone: any member (members included) creates, changes and deletes
 *   their own; nobody else sees them, so to anyone else they do not exist (404).
 * - Organization-shared filters are created, changed and deleted by owners, admins and integration tokens;
 *   members see them but get 403.
 * - Integration tokens have no personal filters: they cannot create or switch a filter to `personal`.
 * - Only the creator may switch a shared filter to personal (it becomes their own); making a personal filter
 *   shared needs a role that may write shared filters.
 */

/** The caller's role in the organization (`token` for integration tokens). */
export type FilterRole = Role

/** What a create, change or delete endpoint asks of the roles table: one of the two, the filter decides which. */
export const FILTER_WRITES: ReadonlyArray<Action> = ["preset_filters.write_personal", "preset_filters.write_shared"]

/** A refusal: `forbidden` is a 403 with its detail; `invalid` a 400 under the `visibility` field. */
export type Refusal =
  | { readonly _tag: "Forbidden"; readonly detail: string }
  | { readonly _tag: "InvalidVisibility"; readonly message: string }

const writesShared = (role: FilterRole) => allows("preset_filters.write_shared", role)
const writesPersonal = (role: FilterRole) => allows("preset_filters.write_personal", role)

const SHARED_FORBIDDEN: Refusal = { _tag: "Forbidden", detail: deniedDetail("preset_filters.write_shared")! }
const PERSONAL_FORBIDDEN: Refusal = { _tag: "Forbidden", detail: deniedDetail("preset_filters.write_personal")! }

const TOKEN_PERSONAL: Refusal = {
  _tag: "InvalidVisibility",
  message: 'Integration tokens have no personal filters: use "organization".'
}

/** The visibility a new filter gets when the request names none. */
export const defaultVisibility = (viewer: FilterViewer): Visibility =>
  viewer._tag === "Integration" ? "organization" : "personal"

/** Whether the caller may create a filter with this visibility; undefined when allowed. */
export const refuseCreate = (viewer: FilterViewer, role: FilterRole, visibility: Visibility): Refusal | undefined => {
  if (visibility === "personal")
    return viewer._tag === "Integration" ? TOKEN_PERSONAL : writesPersonal(role) ? undefined : PERSONAL_FORBIDDEN
  return writesShared(role) ? undefined : SHARED_FORBIDDEN
}

/**
 * Whether the caller may change (or, with `to` undefined, delete) a filter they can see; undefined when allowed.
 * `to` is the requested visibility, when the change names one.
 */
export const refuseChange = (
  viewer: FilterViewer,
  role: FilterRole,
  filter: { readonly visibility: Visibility; readonly createdById: number | null },
  to?: Visibility
): Refusal | undefined => {
  const isCreator = viewer._tag === "Person" && filter.createdById === viewer.userId
  if (filter.visibility === "personal") {
    // Visible only to the creator, so the caller is the creator here.
    if (!isCreator) return { _tag: "Forbidden", detail: "Only the creator may change a personal filter." }
    if (!writesPersonal(role)) return PERSONAL_FORBIDDEN
    if (to === "organization" && !writesShared(role)) return SHARED_FORBIDDEN
    return undefined
  }
  if (!writesShared(role)) return SHARED_FORBIDDEN
  if (to === "personal") {
    if (viewer._tag === "Integration") return TOKEN_PERSONAL
    if (!isCreator)
      return { _tag: "InvalidVisibility", message: "Only the filter's creator may make a shared filter personal." }
  }
  return undefined
}
