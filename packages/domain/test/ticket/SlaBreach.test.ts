import { describeTicketEvent, evolve, evolveAll, RecordSlaBreach, TicketSlaBreached } from "@helpdesk/domain"
import { minute, system, ticketCreated, ticketId } from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { given } from "../utils/DeciderSpecification.js"

describe("SLA breaches", () => {
  it("RecordSlaBreach records TicketSlaBreached with the policy, target and due instant", () => {
    given(ticketCreated())
      .when(
        new RecordSlaBreach({
          ticketId,
          at: minute(40),
          actor: system,
          policyId: 7,
          target: "first_reply",
          dueAt: minute(30)
        })
      )
      .thenEmits(
        new TicketSlaBreached({ at: minute(40), by: system, policyId: 7, target: "first_reply", dueAt: minute(30) })
      )
  })

  it("a breach changes no field of the state, updated_at included, and reads as a missed target", () => {
    const created = evolveAll([ticketCreated()])
    const breach = new TicketSlaBreached({
      at: minute(90),
      by: system,
      policyId: 7,
      target: "resolution",
      dueAt: minute(60)
    })
    expect(evolve(created, breach)).toEqual(created)
    expect(describeTicketEvent(created, breach).summary).toMatch(/^SLA resolution target missed \(due /)
  })

  it("refuses a breach on a ticket that does not exist", () => {
    given()
      .when(
        new RecordSlaBreach({
          ticketId,
          at: minute(1),
          actor: system,
          policyId: 1,
          target: "resolution",
          dueAt: minute(0)
        })
      )
      .thenFails("TicketNotFound")
  })
})
