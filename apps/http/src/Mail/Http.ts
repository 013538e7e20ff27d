import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { TicketServicesLive } from "../Tickets/TicketServices.js"
import { PIXEL_GIF, ReadReceipts } from "./ReadReceipts.js"

/** Handlers of the `mailTracking` group; needs the `SqlClient`. */
export const MailTrackingLive = HttpApiBuilder.group(Api, "mailTracking", (handlers) =>
  Effect.gen(function* () {
    const receipts = yield* ReadReceipts
    return handlers.handleRaw("opened", ({ path }) =>
      Effect.as(
        receipts.opened(path.token),
        HttpServerResponse.uint8Array(PIXEL_GIF, {
          contentType: "image/gif",
          headers: {
            "cache-control": "no-store, no-cache, must-revalidate, private",
            "x-content-type-options": "nosniff"
          }
        })
      )
    )
  })
).pipe(Layer.provide(ReadReceipts.Default), Layer.provide(TicketServicesLive))
