import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer, ParseResult, Schema } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { addFieldError, type FieldErrors, NotFound, ValidationError } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { integerIdOrNotFound } from "../Http/PathParams.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created, noContent } from "../Http/Responses.js"
import { BusinessHours } from "./BusinessHours.js"
import { BusinessHoursExceptions, ExceptionOrdering } from "./BusinessHoursExceptions.js"
import type { BusinessHoursNotSaved, InvalidBusinessHours } from "./Errors.js"
import { BusinessHoursException } from "./Resources.js"
import { exceptionBody, ScheduleChangeFromBody, scheduleBody } from "./WireBody.js"

/** Field errors at their wire paths, nested (`{"weekly_hours":{"mon":{"opens_at":[…]}}}`). */
const fieldErrors = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
) => {
  const tree: Record<string, unknown> = {}
  for (const issue of issues) addFieldError(tree, issue.path.map(String), [issue.message])
  return new ValidationError({ errors: tree as FieldErrors })
}

/** The field errors of invalid business hours. */
const asValidationError = (error: InvalidBusinessHours) => fieldErrors(error.issues)

/** The schedule change a `PUT` body asks for, or its field errors. */
const decodeScheduleChange = (body: unknown) =>
  Schema.decodeUnknown(ScheduleChangeFromBody)(body).pipe(
    Effect.mapError((error) => fieldErrors(ParseResult.ArrayFormatter.formatErrorSync(error)))
  )

/** A broken state rule is a 400 under `non_field_errors`. */
const notSaved = (error: BusinessHoursNotSaved) => ValidationError.nonField(error.message)

const notFound = () => new NotFound()

/** Handlers of the `businessHours` group. */
export const BusinessHoursLive = HttpApiBuilder.group(Api, "businessHours", (handlers) =>
  Effect.gen(function* () {
    const access = yield* OrganizationAccess
    const businessHours = yield* BusinessHours
    const exceptions = yield* BusinessHoursExceptions

    return handlers
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "business_hours.read")
          return yield* businessHours.view(scope.organizationId)
        })
      )
      .handleRaw("replace", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "business_hours.write")
          const change = yield* RequestBody.read(request).pipe(
            Effect.flatMap(scheduleBody),
            Effect.flatMap(decodeScheduleChange)
          )
          return yield* businessHours
            .replace(scope.organizationId, change)
            .pipe(Effect.catchTag("InvalidBusinessHours", (error) => Effect.fail(asValidationError(error))))
        })
      )
      .handle("listExceptions", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "business_hours.read")
          const page = yield* Pagination.parse(urlParams)
          const ordering = yield* ExceptionOrdering.parse(urlParams.ordering)
          return yield* Pagination.paginate(request, page, exceptions.list(scope.organizationId, ordering))
        })
      )
      .handleRaw("createException", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "business_hours.write")
          const body = yield* Effect.flatMap(RequestBody.read(request), exceptionBody)
          const exception = yield* exceptions.create(scope.organizationId, body).pipe(
            Effect.catchTags({
              InvalidBusinessHours: (error) => Effect.fail(asValidationError(error)),
              BusinessHoursNotSaved: (error) => Effect.fail(notSaved(error))
            })
          )
          return yield* created(
            request,
            BusinessHoursException,
            exception,
            `/organizations/${scope.publicId}/business-hours/exceptions/${exception.id}/`
          )
        })
      )
      .handle("getException", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "business_hours.read")
          const id = yield* integerIdOrNotFound(path.pk)
          return yield* exceptions
            .get(scope.organizationId, id)
            .pipe(Effect.catchTag("BusinessHoursExceptionNotFound", () => Effect.fail(notFound())))
        })
      )
      .handleRaw("updateException", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "business_hours.write")
          const id = yield* integerIdOrNotFound(path.pk)
          const body = yield* Effect.flatMap(RequestBody.read(request), exceptionBody)
          return yield* exceptions.update(scope.organizationId, id, body).pipe(
            Effect.catchTags({
              InvalidBusinessHours: (error) => Effect.fail(asValidationError(error)),
              BusinessHoursNotSaved: (error) => Effect.fail(notSaved(error)),
              BusinessHoursExceptionNotFound: () => Effect.fail(notFound())
            })
          )
        })
      )
      .handleRaw("deleteException", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "business_hours.write")
          const id = yield* integerIdOrNotFound(path.pk)
          yield* exceptions
            .remove(scope.organizationId, id)
            .pipe(Effect.catchTag("BusinessHoursExceptionNotFound", () => Effect.fail(notFound())))
          return noContent
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, BusinessHours.Default, BusinessHoursExceptions.Default]))
