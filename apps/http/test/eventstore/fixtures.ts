import { randomUUID } from "node:crypto"
import type { ExpectedVersion, NewEvent, StreamAppend } from "@helpdesk/domain"
import { Layer } from "effect"
import { type InlineProjection, InlineProjections } from "../../src/EventStore/InlineProjection.js"
import { PostgresEventStoreLive } from "../../src/EventStore/PostgresEventStore.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/** How long a fresh database may take to start and migrate (an in-memory PGlite on a busy machine is slow). */
export const databaseStartup = "3 minutes"

/** A new event with a fresh id. */
export const newEvent = (type = "Noted", data: unknown = { n: 1 }): NewEvent => ({
  eventId: randomUUID(),
  type,
  schemaVersion: 1,
  data
})

/** `count` new events numbered from 1 in their data. */
export const newEvents = (count: number, type = "Noted"): ReadonlyArray<NewEvent> =>
  Array.from({ length: count }, (_, i) => newEvent(type, { n: i + 1 }))

/** One stream's part of an append. */
export const appendTo = (
  streamId: string,
  expected: ExpectedVersion,
  events: ReadonlyArray<NewEvent>,
  close?: boolean
): StreamAppend => ({
  streamId,
  streamType: "test",
  expected,
  events,
  ...(close === undefined ? {} : { close })
})

/** A stream id no other test uses. */
export const freshStream = (prefix = "s") => `${prefix}-${randomUUID()}`

/** The store (port and service) on a fresh migrated database, with these inline projections. */
export const eventStoreOnFreshDatabase = (projections: ReadonlyArray<InlineProjection> = []) =>
  PostgresEventStoreLive.pipe(Layer.provide(InlineProjections.layer(projections)), Layer.provideMerge(TestDatabaseLive))
