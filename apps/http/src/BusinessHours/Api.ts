import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { IntegerId, OrganizationId, OrganizationPath } from "../Http/PathParams.js"
import { ExceptionOrdering } from "./BusinessHoursExceptions.js"
import {
  BusinessHoursException,
  BusinessHoursExceptionCreate,
  BusinessHoursExceptionUpdate,
  BusinessHoursReplace,
  BusinessHoursResource
} from "./Resources.js"

const ExceptionPath = Schema.Struct({ organization_id: OrganizationId, pk: IntegerId })

const ROLES = "Members read; owners, admins and integration tokens write (members get 403)."

const STATUS =
  "`is_open_now`, `next_open` and `next_open_display` are computed at the time of the request from the whole schedule: weekly hours and every exception (precedence per date: a non-repeating exception on that date, else a repeating one for that month and day, else the weekday)."

/** `/organizations/{organization_id}/business-hours/`: the organization's schedule and its dated exceptions. */
export class BusinessHoursApi extends HttpApiGroup.make("businessHours")
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/business-hours/")
      .setPath(OrganizationPath)
      .addSuccess(BusinessHoursResource)
      .annotate(OpenApi.Summary, "Read the business hours and whether the organization is open now")
      .annotate(
        OpenApi.Description,
        `${STATUS} When no schedule is saved: \`timezone\` null, \`weekly_hours\` \`{}\`, open 24/7 (\`is_open_now\` true, \`next_open\` null, \`next_open_display\` empty). ${ROLES}`
      )
  )
  .add(
    HttpApiEndpoint.put("replace", "/organizations/:organization_id/business-hours/")
      .setPath(OrganizationPath)
      .setPayload(BusinessHoursReplace)
      .addSuccess(BusinessHoursResource)
      .annotate(OpenApi.Summary, "Save (replace) the business hours")
      .annotate(
        OpenApi.Description,
        `Replaces the time zone and the weekly hours; exceptions are kept. Answers 200 with the saved schedule and its status. Field errors are nested (\`{"weekly_hours":{"mon":{"opens_at":["Time has wrong format. Use HH:MM."]}}}\`, \`{"timezone":["Unknown time zone \\"Mars/Base\\"."]}\`). ${STATUS} ${ROLES}`
      )
  )
  .add(
    HttpApiEndpoint.get("listExceptions", "/organizations/:organization_id/business-hours/exceptions/")
      .setPath(OrganizationPath)
      .setUrlParams(Schema.Struct({ ...ExceptionOrdering.params, ...Pagination.params }))
      .addSuccess(Pagination.Envelope(BusinessHoursException))
      .annotate(OpenApi.Summary, "List the business-hours exceptions")
      .annotate(
        OpenApi.Description,
        `Paginated envelope, ordered by \`date\` (then \`id\`) unless \`ordering\` says otherwise. ${ROLES}`
      )
  )
  .add(
    HttpApiEndpoint.post("createException", "/organizations/:organization_id/business-hours/exceptions/")
      .setPath(OrganizationPath)
      .setPayload(BusinessHoursExceptionCreate)
      .addSuccess(BusinessHoursException, { status: 201 })
      .annotate(OpenApi.Summary, "Add a business-hours exception")
      .annotate(
        OpenApi.Description,
        `Answers 201 with a \`Location\` header. Refused with 400 \`non_field_errors\` until business hours are saved. One exception per date: a second one on the same date is a 400 on \`date\` (a repeating exception and a non-repeating one on the same month and day of another year may coexist; the non-repeating one wins on its date). ${ROLES}`
      )
  )
  .add(
    HttpApiEndpoint.get("getException", "/organizations/:organization_id/business-hours/exceptions/:pk/")
      .setPath(ExceptionPath)
      .addSuccess(BusinessHoursException)
      .annotate(OpenApi.Summary, "Read a business-hours exception")
      .annotate(OpenApi.Description, ROLES)
  )
  .add(
    HttpApiEndpoint.patch("updateException", "/organizations/:organization_id/business-hours/exceptions/:pk/")
      .setPath(ExceptionPath)
      .setPayload(BusinessHoursExceptionUpdate)
      .addSuccess(BusinessHoursException)
      .annotate(OpenApi.Summary, "Change a business-hours exception")
      .annotate(
        OpenApi.Description,
        `Any of the fields; the exception they make together with its stored fields is validated as a whole (setting only \`opens_at\` on a closed date is refused on \`closes_at\`). ${ROLES}`
      )
  )
  .add(
    HttpApiEndpoint.del("deleteException", "/organizations/:organization_id/business-hours/exceptions/:pk/")
      .setPath(ExceptionPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Delete a business-hours exception")
      .annotate(OpenApi.Description, `Answers 204 with no body. ${ROLES}`)
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Business hours") {}
