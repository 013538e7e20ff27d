import type { SqlClient, Statement } from "@effect/sql"
import type { TicketWrite } from "@helpdesk/domain"
import { Context, Layer } from "effect"

/**
 * Rows that ticket writes imply beside their events and read models (the mail outbox's): a pure function of the writes
 * as decided, made in the append's own statement, so they cost no round trip and exist exactly when the append went
 * through (docs/decisions/0816-outbox-rows-with-the-append.md). Unlike an inline projection they are never rebuilt:
 * they are made once, by the live append that implies them.
 */
export interface TicketAppendRows {
  /** A stable name (in logs and tests). */
  readonly name: string
  /**
   * Common table expressions (`<name> AS (<statement>)`, names starting with `name`) writing the rows `writes` imply,
   * nothing unless `appended` (an SQL condition: the append went through) holds; `[]` when they imply none.
   */
  readonly rows: (
    sql: SqlClient.SqlClient,
    writes: ReadonlyArray<TicketWrite>,
    appended: Statement.Fragment
  ) => ReadonlyArray<Statement.Fragment>
}

/** The rows every ticket append of the service makes. None by default; the service registers the mail outbox's. */
export class TicketAppendRowsRegistered extends Context.Reference<TicketAppendRowsRegistered>()(
  "@helpdesk/http/Tickets/Store/TicketAppendRows",
  { defaultValue: (): ReadonlyArray<TicketAppendRows> => [] }
) {
  /** Registers these (replacing any registered before). */
  static layer(rows: ReadonlyArray<TicketAppendRows>): Layer.Layer<TicketAppendRowsRegistered> {
    return Layer.succeed(TicketAppendRowsRegistered, rows)
  }
}
