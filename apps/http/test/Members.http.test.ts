import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { deniedDetail } from "../src/Auth/Permissions.js"
import * as Fixtures from "./support/Fixtures.js"
import { del, get, patch, post, TestApp, TestAppLive } from "./support/TestApp.js"

/**
 * Members and personal tokens over the API (docs/api-conventions.md, "Members and personal tokens"; decisions
 * 0413 and 0414): owners and admins manage the people, only owners manage owners, the last owner stays, and each
 * person manages their own tokens, a revocation or a removal applying to the very next request.
 */

const members = (org: Fixtures.OrgFixture) => `${org.path}members/`
const tokens = (org: Fixtures.OrgFixture) => `${org.path}personal-tokens/`

const LAST_OWNER_DEMOTE = {
  detail: "This is the organization's last owner and must stay owner: make another member owner first."
}
const LAST_OWNER_REMOVE = {
  detail: "This is the organization's last owner and cannot be removed: make another member owner first."
}

layer(TestAppLive, { excludeTestServices: true })("members and personal tokens over the API", (it) => {
  it.effect("every role lists the members, paged and ordered; search on name and e-mail", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const { member, admin, integration } = yield* Fixtures.staff(org)
      for (const token of [org.ownerToken, admin.token, member.token, integration]) {
        const list = yield* get(members(org), { token })
        assert.strictEqual(list.status, 200, list.text)
        assert.strictEqual(list.body.count, 3)
      }
      const all = (yield* get(`${members(org)}?ordering=email`, { token: member.token })).body
      const emails = [org.ownerEmail, admin.email, member.email].sort()
      assert.deepStrictEqual(
        all.results.map((m: { email: string }) => m.email),
        emails
      )
      const owner = all.results.find((m: { id: number }) => m.id === org.ownerId)
      assert.deepStrictEqual(Object.keys(owner).sort(), [
        "email",
        "id",
        "joined_at",
        "name",
        "profile_picture_url",
        "role"
      ])
      assert.strictEqual(owner.role, "owner")
      assert.strictEqual(owner.name, "Owner")
      assert.match(owner.joined_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

      const first = yield* get(`${members(org)}?page_size=2&ordering=-email`, { token: member.token })
      assert.deepStrictEqual(
        first.body.results.map((m: { email: string }) => m.email),
        [...emails].reverse().slice(0, 2)
      )
      assert.strictEqual(first.body.next, `${baseUrl}${members(org)}?page_size=2&ordering=-email&page=2`)
      const second = yield* get(first.body.next.slice(baseUrl.length), { token: member.token })
      assert.deepStrictEqual(
        second.body.results.map((m: { email: string }) => m.email),
        [emails[0]]
      )
      assert.strictEqual(second.body.next, null)
      assert.strictEqual((yield* get(`${members(org)}?page=3&page_size=2`, { token: member.token })).status, 404)
      const byRole = (yield* get(`${members(org)}?ordering=role,email`, { token: member.token })).body
      assert.deepStrictEqual(
        byRole.results.map((m: { role: string }) => m.role),
        ["admin", "member", "owner"]
      )
      const bad = yield* get(`${members(org)}?ordering=password`, { token: member.token })
      assert.strictEqual(bad.status, 400)
      assert.property(bad.body, "ordering")

      const found = yield* get(`${members(org)}?search=${admin.email.slice(0, 12).toUpperCase()}`, {
        token: member.token
      })
      assert.deepStrictEqual(
        found.body.results.map((m: { id: number }) => m.id),
        [admin.userId]
      )
      const read = yield* get(`${members(org)}${member.userId}/`, { token: integration })
      assert.strictEqual(read.status, 200, read.text)
      assert.strictEqual(read.body.role, "member")
      // The ids are those `assignee_id` takes.
      const t = yield* post(`${org.path}tickets/`, {
        token: org.ownerToken,
        json: { subject: "S", description: "D", customer_email: "c@example.com", assignee_id: read.body.id }
      })
      assert.strictEqual(t.status, 201, t.text)
      assert.strictEqual(t.body.assignee.id, member.userId)
    })
  )

  it.effect("another organization's people and members are not found", () =>
    Effect.gen(function* () {
      const a = yield* Fixtures.organization()
      const b = yield* Fixtures.organization()
      const bMember = yield* Fixtures.member(b, "member")
      for (const token of [a.ownerToken, yield* Fixtures.integrationToken(a), yield* Fixtures.outsider]) {
        assert.strictEqual((yield* get(members(b), { token })).status, 404)
        assert.strictEqual((yield* get(`${members(b)}${bMember.userId}/`, { token })).status, 404)
        assert.strictEqual((yield* post(members(b), { token, json: { email: Fixtures.uniqueEmail() } })).status, 404)
        assert.strictEqual((yield* del(`${members(b)}${bMember.userId}/`, { token })).status, 404)
      }
      // B's member is no member of A: not listed there, not readable by id.
      assert.strictEqual((yield* get(`${members(a)}${bMember.userId}/`, { token: a.ownerToken })).status, 404)
      const aList = (yield* get(members(a), { token: a.ownerToken })).body
      assert.deepStrictEqual(
        aList.results.map((m: { id: number }) => m.id),
        [a.ownerId]
      )
      for (const bad of ["abc", "0", "-1", "1.5", "99999999999"])
        assert.strictEqual((yield* get(`${members(a)}${bad}/`, { token: a.ownerToken })).status, 404, bad)
    })
  )

  it.effect("adding: an existing user by e-mail or a new one; role default member; twice is 409; bad bodies 400", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const admin = yield* Fixtures.member(org, "admin")
      const fresh = Fixtures.uniqueEmail("new")
      const added = yield* post(members(org), {
        token: admin.token,
        json: { email: `  ${fresh.toUpperCase()} `, name: "Nora New" }
      })
      assert.strictEqual(added.status, 201, added.text)
      assert.strictEqual(added.body.email, fresh)
      assert.strictEqual(added.body.name, "Nora New")
      assert.strictEqual(added.body.role, "member")
      assert.strictEqual(added.headers.get("location"), `${baseUrl}${members(org)}${added.body.id}/`)

      // The owner of another organization is an existing user: added as they are (their name kept), by form.
      const existing = yield* post(members(org), {
        token: org.ownerToken,
        form: { email: other.ownerEmail, name: "Ignored", role: "admin" }
      })
      assert.strictEqual(existing.status, 201, existing.text)
      assert.strictEqual(existing.body.id, other.ownerId)
      assert.strictEqual(existing.body.name, "Owner")
      assert.strictEqual(existing.body.role, "admin")
      // Their personal token now works here too, with the role given.
      assert.strictEqual((yield* get(org.path, { token: other.ownerToken })).status, 200)

      const twice = yield* post(members(org), { token: org.ownerToken, json: { email: fresh, role: "admin" } })
      assert.strictEqual(twice.status, 409)
      assert.deepStrictEqual(twice.body, {
        detail: `${fresh} is already a member (member): change their role with PATCH members/${added.body.id}/.`
      })

      const invalid = yield* post(members(org), {
        token: org.ownerToken,
        json: { email: "not-an-address", role: "boss", name: "n".repeat(256) }
      })
      assert.strictEqual(invalid.status, 400)
      assert.deepStrictEqual(Object.keys(invalid.body).sort(), ["email", "name", "role"])
      assert.deepStrictEqual(invalid.body.role, ['"boss" is not a valid choice. Allowed: owner, admin, member.'])
      assert.deepStrictEqual(invalid.body.name, ["Ensure this field has no more than 255 characters."])
      const longest = yield* post(members(org), {
        token: org.ownerToken,
        json: { email: Fixtures.uniqueEmail("long"), name: "n".repeat(255) }
      })
      assert.strictEqual(longest.status, 201, longest.text)
      assert.deepStrictEqual((yield* post(members(org), { token: org.ownerToken, json: {} })).body, {
        email: ["This field is required."]
      })
      assert.strictEqual((yield* get(members(org), { token: org.ownerToken })).body.count, 5)
    })
  )

  it.effect("members, integration tokens and admins (for owners) are refused before the body is read", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const admin = yield* Fixtures.member(org, "admin")
      const member = yield* Fixtures.member(org, "member")
      const colleague = yield* Fixtures.member(org, "member")
      const integration = yield* Fixtures.integrationToken(org)
      const noPeople = { detail: deniedDetail("members.write")! }
      assert.deepStrictEqual(noPeople, { detail: "Only owners and admins may add, change or remove members." })
      for (const token of [member.token, integration]) {
        for (const response of [
          yield* post(members(org), { token, json: { email: Fixtures.uniqueEmail() } }),
          yield* post(members(org), { token, body: "{not json", contentType: "application/json" }),
          yield* patch(`${members(org)}${colleague.userId}/`, { token, json: { role: "admin" } }),
          yield* del(`${members(org)}${colleague.userId}/`, { token })
        ]) {
          assert.strictEqual(response.status, 403, response.text)
          assert.deepStrictEqual(response.body, noPeople)
        }
      }
      // A member cannot promote themself either.
      const self = yield* patch(`${members(org)}${member.userId}/`, { token: member.token, json: { role: "owner" } })
      assert.strictEqual(self.status, 403)

      const ownersOnly = { detail: "Only owners may make, change or remove owners." }
      const makeOwner = yield* post(members(org), {
        token: admin.token,
        json: { email: Fixtures.uniqueEmail(), role: "owner" }
      })
      assert.deepStrictEqual([makeOwner.status, makeOwner.body], [403, ownersOnly])
      const promote = yield* patch(`${members(org)}${colleague.userId}/`, {
        token: admin.token,
        json: { role: "owner" }
      })
      assert.deepStrictEqual([promote.status, promote.body], [403, ownersOnly])
      const demoteOwner = yield* patch(`${members(org)}${org.ownerId}/`, {
        token: admin.token,
        json: { role: "member" }
      })
      assert.deepStrictEqual([demoteOwner.status, demoteOwner.body], [403, ownersOnly])
      const removeOwner = yield* del(`${members(org)}${org.ownerId}/`, { token: admin.token })
      assert.deepStrictEqual([removeOwner.status, removeOwner.body], [403, ownersOnly])
      // Nothing changed.
      const roles = (yield* get(`${members(org)}?ordering=id`, { token: org.ownerToken })).body.results.map(
        (m: { role: string }) => m.role
      )
      assert.deepStrictEqual(roles, ["owner", "admin", "member", "member"])
      assert.strictEqual((yield* get(org.path, { token: colleague.token })).status, 200)
    })
  )

  it.effect("role changes apply to the next request; admins manage members and admins", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const admin = yield* Fixtures.member(org, "admin")
      const agent = yield* Fixtures.member(org, "member")
      const rename = () => patch(org.path, { token: agent.token, json: { name: "Renamed" } })
      assert.strictEqual((yield* rename()).status, 403)
      const promoted = yield* patch(`${members(org)}${agent.userId}/`, { token: admin.token, json: { role: "admin" } })
      assert.strictEqual(promoted.status, 200, promoted.text)
      assert.strictEqual(promoted.body.role, "admin")
      assert.strictEqual((yield* rename()).status, 200)
      const demoted = yield* patch(`${members(org)}${agent.userId}/`, {
        token: admin.token,
        form: { role: "member" }
      })
      assert.strictEqual(demoted.body.role, "member")
      assert.strictEqual((yield* rename()).status, 403)
      // No role given, or the same role: nothing to change.
      const same = yield* patch(`${members(org)}${agent.userId}/`, { token: admin.token, json: {} })
      assert.deepStrictEqual([same.status, same.body.role], [200, "member"])
      const bad = yield* patch(`${members(org)}${agent.userId}/`, { token: admin.token, json: { role: "token" } })
      assert.strictEqual(bad.status, 400)
      assert.property(bad.body, "role")
      assert.strictEqual(
        (yield* patch(`${members(org)}999999999/`, { token: admin.token, json: { role: "admin" } })).status,
        404
      )
    })
  )

  it.effect("the last owner is never demoted or removed (409); with a second owner both work", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const admin = yield* Fixtures.member(org, "admin")
      const self = `${members(org)}${org.ownerId}/`
      const demote = yield* patch(self, { token: org.ownerToken, json: { role: "admin" } })
      assert.deepStrictEqual([demote.status, demote.body], [409, LAST_OWNER_DEMOTE])
      const remove = yield* del(self, { token: org.ownerToken })
      assert.deepStrictEqual([remove.status, remove.body], [409, LAST_OWNER_REMOVE])
      assert.strictEqual((yield* get(self, { token: org.ownerToken })).body.role, "owner")

      // A second owner: now the first may step down, and the second may not be removed.
      const second = yield* patch(`${members(org)}${admin.userId}/`, { token: org.ownerToken, json: { role: "owner" } })
      assert.strictEqual(second.body.role, "owner")
      const steppedDown = yield* patch(self, { token: org.ownerToken, json: { role: "admin" } })
      assert.deepStrictEqual([steppedDown.status, steppedDown.body.role], [200, "admin"])
      // The former owner is an admin now: owners are no longer theirs to change.
      const back = yield* patch(self, { token: org.ownerToken, json: { role: "owner" } })
      assert.strictEqual(back.status, 403)
      const removeLast = yield* del(`${members(org)}${admin.userId}/`, { token: admin.token })
      assert.deepStrictEqual([removeLast.status, removeLast.body], [409, LAST_OWNER_REMOVE])
      // The remaining owner removes the admin (the original owner), who then no longer sees the organization.
      assert.strictEqual((yield* del(self, { token: admin.token })).status, 204)
      assert.strictEqual((yield* get(org.path, { token: org.ownerToken })).status, 404)
    })
  )

  it.effect("two owners demoting each other at once leave one owner", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const second = yield* Fixtures.member(org, "owner")
      const [a, b] = yield* Effect.all(
        [
          patch(`${members(org)}${second.userId}/`, { token: org.ownerToken, json: { role: "member" } }),
          patch(`${members(org)}${org.ownerId}/`, { token: second.token, json: { role: "member" } })
        ],
        { concurrency: 2 }
      )
      const statuses = [a.status, b.status].sort()
      // Serialised by the organization's lock: one demotion wins, the other is refused (by the roles table when
      // the caller was demoted first, or as the last owner).
      assert.strictEqual(statuses[0], 200, `${a.text} ${b.text}`)
      assert.include([403, 409], statuses[1])
      const list = (yield* get(members(org), { token: org.ownerToken })).body.results
      assert.strictEqual(list.filter((m: { role: string }) => m.role === "owner").length, 1)
    })
  )

  it.effect("a removed member's token stops working in that organization at once, and keeps working elsewhere", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const elsewhere = yield* Fixtures.organization()
      const agent = yield* Fixtures.member(org, "member")
      yield* post(members(elsewhere), { token: elsewhere.ownerToken, json: { email: agent.email } })
      // Both memberships are cached by these reads.
      assert.strictEqual((yield* get(`${org.path}tickets/`, { token: agent.token })).status, 200)
      assert.strictEqual((yield* get(`${elsewhere.path}tickets/`, { token: agent.token })).status, 200)
      const removed = yield* del(`${members(org)}${agent.userId}/`, { token: org.ownerToken })
      assert.strictEqual(removed.status, 204)
      assert.strictEqual(removed.text, "")
      assert.strictEqual((yield* get(`${org.path}tickets/`, { token: agent.token })).status, 404)
      assert.strictEqual((yield* get(`${members(org)}${agent.userId}/`, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* del(`${members(org)}${agent.userId}/`, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* get(`${elsewhere.path}tickets/`, { token: agent.token })).status, 200)
      // Added again, they are back at once.
      assert.strictEqual(
        (yield* post(members(org), { token: org.ownerToken, json: { email: agent.email } })).status,
        201
      )
      assert.strictEqual((yield* get(`${org.path}tickets/`, { token: agent.token })).status, 200)
    })
  )

  it.effect("personal tokens: create (the secret shown once), list without secrets, revoke at once", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const agent = yield* Fixtures.member(org, "member")
      const made = yield* post(tokens(org), { token: agent.token, json: { name: "  laptop " } })
      assert.strictEqual(made.status, 201, made.text)
      assert.match(made.body.token, /^hd_pat_[A-Za-z0-9_-]{43}$/)
      assert.strictEqual(made.body.name, "laptop")
      assert.strictEqual(made.body.prefix, `${made.body.token.slice(0, 11)}…`)
      assert.strictEqual(made.body.revoked_at, null)
      assert.strictEqual(made.headers.get("location"), `${baseUrl}${tokens(org)}${made.body.id}/`)
      const secret: string = made.body.token

      // The new token acts as the agent, here and in reads of the token itself, which never show the secret.
      const read = yield* get(`${tokens(org)}${made.body.id}/`, { token: secret })
      assert.strictEqual(read.status, 200, read.text)
      assert.notProperty(read.body, "token")
      assert.notInclude(read.text, secret.slice(11))
      const listed = yield* get(tokens(org), { token: secret })
      assert.strictEqual(listed.body.count, 2)
      assert.deepStrictEqual(
        listed.body.results.map((t: { id: number }) => t.id)[0],
        made.body.id,
        "newest first by default"
      )
      assert.notInclude(listed.text, secret.slice(11))
      for (const t of listed.body.results) assert.notProperty(t, "token")
      const byName = yield* get(`${tokens(org)}?ordering=name&page_size=1`, { token: secret })
      assert.strictEqual(byName.body.results[0].name, "")
      assert.isString(byName.body.next)

      // Revoked: the very next request with it is 401, also in its cached state; the other token still works.
      const revoked = yield* del(`${tokens(org)}${made.body.id}/`, { token: agent.token })
      assert.strictEqual(revoked.status, 204)
      const refused = yield* get(`${org.path}tickets/`, { token: secret })
      assert.deepStrictEqual([refused.status, refused.body], [401, { detail: "Invalid token." }])
      assert.strictEqual((yield* del(`${tokens(org)}${made.body.id}/`, { token: agent.token })).status, 204)
      const after = yield* get(`${tokens(org)}${made.body.id}/`, { token: agent.token })
      assert.isString(after.body.revoked_at)

      // A token may revoke itself; the request that does it is answered, the next is refused.
      const own = yield* get(tokens(org), { token: agent.token })
      const selfId = own.body.results.find((t: { revoked_at: string | null }) => t.revoked_at === null).id
      assert.strictEqual((yield* del(`${tokens(org)}${selfId}/`, { token: agent.token })).status, 204)
      assert.strictEqual((yield* get(tokens(org), { token: agent.token })).status, 401)
    })
  )

  it.effect("personal tokens are one's own: another's is 404; integration tokens have none (403); limits", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const { member: agent, admin: colleague, integration } = yield* Fixtures.staff(org)
      const theirs = (yield* post(tokens(org), { token: colleague.token, json: {} })).body
      assert.strictEqual(theirs.name, "")
      assert.strictEqual((yield* get(`${tokens(org)}${theirs.id}/`, { token: agent.token })).status, 404)
      assert.strictEqual((yield* del(`${tokens(org)}${theirs.id}/`, { token: agent.token })).status, 404)
      assert.strictEqual((yield* del(`${tokens(org)}${theirs.id}/`, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* get(tokens(org), { token: colleague.token })).status, 200, "still valid")
      const agentList = (yield* get(tokens(org), { token: agent.token })).body
      assert.strictEqual(agentList.count, 1)

      const noTokens = { detail: "Only owners, admins and members may have personal tokens." }
      for (const response of [
        yield* get(tokens(org), { token: integration }),
        yield* post(tokens(org), { token: integration, json: {} }),
        yield* get(`${tokens(org)}${theirs.id}/`, { token: integration }),
        yield* del(`${tokens(org)}${theirs.id}/`, { token: integration })
      ])
        assert.deepStrictEqual([response.status, response.body], [403, noTokens])
      // An organization the caller is not in: 404, whatever the token.
      assert.strictEqual((yield* get(tokens(other), { token: agent.token })).status, 404)
      assert.strictEqual((yield* post(tokens(other), { token: agent.token, json: {} })).status, 404)

      const longest = yield* post(tokens(org), { token: agent.token, json: { name: "n".repeat(100) } })
      assert.strictEqual(longest.status, 201, longest.text)
      const tooLong = yield* post(tokens(org), { token: agent.token, json: { name: "n".repeat(101) } })
      assert.deepStrictEqual(
        [tooLong.status, tooLong.body],
        [400, { name: ["Ensure this field has no more than 100 characters."] }]
      )
      const badOrdering = yield* get(`${tokens(org)}?ordering=token`, { token: agent.token })
      assert.strictEqual(badOrdering.status, 400)
      for (const bad of ["abc", "0", "99999999999"])
        assert.strictEqual((yield* del(`${tokens(org)}${bad}/`, { token: agent.token })).status, 404, bad)
    })
  )
})
