import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { PersonalTokenOrdering } from "../Auth/Tokens.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { IntegerId, OrganizationId, OrganizationPath } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { Member, MemberCreate, MemberUpdate } from "./Member.js"
import { MemberOrdering } from "./Memberships.js"
import { IssuedPersonalToken, PersonalToken, PersonalTokenCreate } from "./PersonalToken.js"

const MemberPath = Schema.Struct({ organization_id: OrganizationId, user_id: IntegerId })
const TokenPath = Schema.Struct({ organization_id: OrganizationId, token_id: IntegerId })

/** `/organizations/{organization_id}/members/`: the people of an organization and their roles. */
export class MembersApi extends HttpApiGroup.make("members")
  .add(
    HttpApiEndpoint.get("list", "/organizations/:organization_id/members/")
      .setPath(OrganizationPath)
      .setUrlParams(
        Schema.Struct({
          search: Query.param("Keyword filter on name and e-mail, ignoring case; every word must match."),
          ...MemberOrdering.params,
          ...Pagination.params
        })
      )
      .addSuccess(Pagination.Envelope(Member))
      .annotate(OpenApi.Summary, "List members")
      .annotate(OpenApi.Description, "Every role. `id` is the user id that `assignee_id` takes.")
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/:organization_id/members/")
      .setPath(OrganizationPath)
      .setPayload(MemberCreate)
      .addSuccess(Member, { status: 201 })
      .annotate(OpenApi.Summary, "Add a member")
      .annotate(
        OpenApi.Description,
        "Owners and admins (only owners add owners). Adds the user with this `email` (created when new, with `name`) with `role` (default `member`); no e-mail is sent: they get access with a personal token. A user who is already a member → 409 (change their role with `PATCH`). Answers 201 with a `Location` header."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/members/:user_id/")
      .setPath(MemberPath)
      .addSuccess(Member)
      .annotate(OpenApi.Summary, "Read a member")
  )
  .add(
    HttpApiEndpoint.patch("update", "/organizations/:organization_id/members/:user_id/")
      .setPath(MemberPath)
      .setPayload(MemberUpdate)
      .addSuccess(Member)
      .annotate(OpenApi.Summary, "Change a member's role")
      .annotate(
        OpenApi.Description,
        "Owners and admins; only owners change an owner or make one. Demoting the last owner → 409. Applies to the member's next request."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/organizations/:organization_id/members/:user_id/")
      .setPath(MemberPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Remove a member")
      .annotate(
        OpenApi.Description,
        "Owners and admins; only owners remove an owner. Removing the last owner → 409. Answers 204; the person's next request to this organization is 404 (their user and personal tokens stay, for their other organizations)."
      )
  )
  .addError(Wire.PermissionDenied)
  .addError(Wire.Conflict)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Members") {}

/** `/organizations/{organization_id}/personal-tokens/`: the calling person's own API tokens. */
export class PersonalTokensApi extends HttpApiGroup.make("personalTokens")
  .add(
    HttpApiEndpoint.get("list", "/organizations/:organization_id/personal-tokens/")
      .setPath(OrganizationPath)
      .setUrlParams(Schema.Struct({ ...PersonalTokenOrdering.params, ...Pagination.params }))
      .addSuccess(Pagination.Envelope(PersonalToken))
      .annotate(OpenApi.Summary, "List my personal tokens")
      .annotate(
        OpenApi.Description,
        "The caller's own personal tokens, revoked ones included, never their secrets. A personal token acts as its person in each of their organizations. Integration tokens → 403."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/:organization_id/personal-tokens/")
      .setPath(OrganizationPath)
      .setPayload(PersonalTokenCreate)
      .addSuccess(IssuedPersonalToken, { status: 201 })
      .annotate(OpenApi.Summary, "Create a personal token")
      .annotate(
        OpenApi.Description,
        "A new token acting as the caller; `token` holds its secret, shown in this answer only. Answers 201 with a `Location` header."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/personal-tokens/:token_id/")
      .setPath(TokenPath)
      .addSuccess(PersonalToken)
      .annotate(OpenApi.Summary, "Read one of my personal tokens")
  )
  .add(
    HttpApiEndpoint.del("delete", "/organizations/:organization_id/personal-tokens/:token_id/")
      .setPath(TokenPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Revoke one of my personal tokens")
      .annotate(
        OpenApi.Description,
        "Answers 204 (again when already revoked); the token is refused (401) from the next request on, in every organization. It stays listed with `revoked_at`. Another person's token → 404."
      )
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Personal tokens") {}
