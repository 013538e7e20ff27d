import { HttpApiGroup } from "@effect/platform"
import * as Endpoint from "../Http/Endpoint.js"
import { integerIdParam, OrganizationPath } from "../Http/PathParams.js"
import * as Resource from "../Http/Resource.js"
import { ExceptionOrdering } from "./BusinessHoursExceptions.js"
import {
  BusinessHoursException,
  BusinessHoursExceptionCreate,
  BusinessHoursExceptionUpdate,
  BusinessHoursReplace,
  BusinessHoursResource
} from "./Resources.js"

const ROLES = "Members read; owners, admins and integration tokens write (members get 403)."

const STATUS =
  "`is_open_now`, `next_open` and `next_open_display` are computed at the time of the request from the whole schedule: weekly hours and every exception (precedence per date: a non-repeating exception on that date, else a repeating one for that month and day, else the weekday)."

const SCHEDULE = "/organizations/:organization_id/business-hours/"

/** The dated exceptions as a directory resource: `/organizations/{organization_id}/business-hours/exceptions/{pk}/`. */
export const ExceptionResource = Resource.make({
  path: { segment: "business-hours/exceptions", id: integerIdParam("pk") },
  noun: { one: "a business-hours exception", many: "the business-hours exceptions" },
  wire: { item: BusinessHoursException, create: BusinessHoursExceptionCreate, update: BusinessHoursExceptionUpdate },
  ordering: ExceptionOrdering,
  names: Resource.suffixed("Exception"),
  docs: {
    list: `Paginated envelope, ordered by \`date\` (then \`id\`) unless \`ordering\` says otherwise. ${ROLES}`,
    create: {
      summary: "Add a business-hours exception",
      description: `Answers 201 with a \`Location\` header. Refused with 400 \`non_field_errors\` until business hours are saved. One exception per date: a second one on the same date is a 400 on \`date\` (a repeating exception and a non-repeating one on the same month and day of another year may coexist; the non-repeating one wins on its date). ${ROLES}`
    },
    get: ROLES,
    update: `Any of the fields; the exception they make together with its stored fields is validated as a whole (setting only \`opens_at\` on a closed date is refused on \`closes_at\`). ${ROLES}`,
    delete: `Answers 204 with no body. ${ROLES}`
  }
})

const exceptions = Resource.endpoints(ExceptionResource)

/** `/organizations/{organization_id}/business-hours/`: the organization's schedule and its dated exceptions. */
export class BusinessHoursApi extends Resource.guarded(
  HttpApiGroup.make("businessHours")
    .add(
      Endpoint.get("get", SCHEDULE, {
        summary: "Read the business hours and whether the organization is open now",
        description: `${STATUS} When no schedule is saved: \`timezone\` null, \`weekly_hours\` \`{}\`, open 24/7 (\`is_open_now\` true, \`next_open\` null, \`next_open_display\` empty). ${ROLES}`
      })
        .setPath(OrganizationPath)
        .addSuccess(BusinessHoursResource)
    )
    .add(
      Endpoint.put("replace", SCHEDULE, {
        summary: "Save (replace) the business hours",
        description: `Replaces the time zone and the weekly hours; exceptions are kept. Answers 200 with the saved schedule and its status. Field errors are nested (\`{"weekly_hours":{"mon":{"opens_at":["Time has wrong format. Use HH:MM."]}}}\`, \`{"timezone":["Unknown time zone \\"Mars/Base\\"."]}\`). ${STATUS} ${ROLES}`
      })
        .setPath(OrganizationPath)
        .setPayload(BusinessHoursReplace)
        .addSuccess(BusinessHoursResource)
    )
    .add(exceptions.list)
    .add(exceptions.create)
    .add(exceptions.get)
    .add(exceptions.update)
    .add(exceptions.delete),
  "Business hours"
) {}
