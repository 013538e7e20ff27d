import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import * as Fuzz from "./support/Fuzz.js"
import { assertRefused, get, patch, post, TestApp, TestAppLive } from "./support/TestApp.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const company = (org: Fixtures.OrgFixture, name: string, email_domains: ReadonlyArray<string> = []) =>
  Effect.gen(function* () {
    const response = yield* post(`${org.path}companies/`, { token: org.ownerToken, json: { name, email_domains } })
    assert.strictEqual(response.status, 201, response.text)
    return response.body as { readonly id: string; readonly name: string }
  })

/** Sends a create request for a customer as the owner (the answer is checked by the caller). */
const postCustomer = (org: Fixtures.OrgFixture, json: unknown) =>
  post(`${org.path}customers/`, { token: org.ownerToken, json })

const customer = (org: Fixtures.OrgFixture, body: Record<string, unknown>) =>
  Effect.gen(function* () {
    const response = yield* postCustomer(org, body)
    assert.strictEqual(response.status, 201, response.text)
    return response.body
  })

layer(TestAppLive, { excludeTestServices: true })("customers over HTTP", (it) => {
  it.effect("POST creates a customer: 201, Location, every field of the Customer", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const acme = yield* company(org, "Acme")
      const response = yield* post(`${org.path}customers/`, {
        token: org.ownerToken,
        json: {
          name: "  Ann Lee  ",
          email: "Ann.Lee@ACME.Example",
          is_spam: true,
          company_id: acme.id.toUpperCase(),
          is_company_manager: true,
          id: 999,
          company: { id: "x" }
        }
      })
      assert.strictEqual(response.status, 201)
      assert.strictEqual(response.headers.get("content-type"), "application/json")
      const c = response.body
      assert.isNumber(c.id)
      assert.notStrictEqual(c.id, 999)
      assert.strictEqual(c.name, "Ann Lee")
      assert.strictEqual(c.email, "Ann.Lee@acme.example")
      assert.strictEqual(c.is_spam, true)
      assert.deepStrictEqual(c.company, { id: acme.id, name: "Acme" })
      assert.match(c.company.id, UUID)
      assert.strictEqual(c.is_company_manager, true)
      assert.deepStrictEqual(Object.keys(c).sort(), ["company", "email", "id", "is_company_manager", "is_spam", "name"])
      assert.strictEqual(response.headers.get("location"), `${baseUrl}${org.path}customers/${c.id}/`)
      const read = yield* get(`${org.path}customers/${c.id}/`, { token: org.ownerToken })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, c)
    })
  )

  it.effect("only email is required; the other fields default (empty name, not spam, no company)", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const missing = yield* postCustomer(org, { name: "No Mail" })
      assertRefused(missing, { email: ["This field is required."] })
      const minimal = yield* customer(org, { email: "min@example.com" })
      assert.deepStrictEqual(minimal, {
        id: minimal.id,
        name: "",
        email: "min@example.com",
        is_spam: false,
        company: null,
        is_company_manager: false
      })
      const nulls = yield* postCustomer(org, { email: "n@example.com", company_id: null })
      assert.strictEqual(nulls.status, 201)
      assert.isNull(nulls.body.company)
    })
  )

  it.effect("name: at most 255 characters; email: at most 254 and a valid address", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const longest = yield* postCustomer(org, { email: "a@example.com", name: "é".repeat(255) })
      assert.strictEqual(longest.status, 201)
      assert.strictEqual(longest.body.name, "é".repeat(255))
      const tooLong = yield* postCustomer(org, { email: "b@example.com", name: "é".repeat(256) })
      assertRefused(tooLong, { name: ["Ensure this field has no more than 255 characters."] })
      // 254 characters: a 64-character local part at a 189-character domain.
      const domain = `${"d".repeat(60)}.${"e".repeat(60)}.${"f".repeat(59)}.example`
      const email254 = `${"l".repeat(64)}@${domain}`
      assert.strictEqual(email254.length, 254)
      const edge = yield* postCustomer(org, { email: email254 })
      assert.strictEqual(edge.status, 201, edge.text)
      assert.strictEqual(edge.body.email, email254)
      const email255 = `m${email254}`
      const over = yield* postCustomer(org, { email: email255 })
      assertRefused(over, { email: ["Ensure this field has no more than 254 characters."] })
      for (const bad of [
        "not-an-email",
        "a@b",
        "@example.com",
        "a b@example.com",
        "a@exa mple.com",
        "a@@example.com"
      ]) {
        const response = yield* postCustomer(org, { email: bad })
        assertRefused(response, { email: ["Enter a valid email address."] }, bad)
      }
      const blank = yield* postCustomer(org, { email: "  " })
      assert.deepStrictEqual(blank.body, { email: ["This field may not be blank."] })
      const wrongType = yield* postCustomer(org, { email: ["a@example.com"], name: {} })
      assert.deepStrictEqual(wrongType.body, { email: ["Not a valid string."], name: ["Not a valid string."] })
    })
  )

  it.effect("email is unique in the organization ignoring case, but may repeat in another organization", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      yield* customer(org, { email: "dup@example.com" })
      const taken = yield* postCustomer(org, { email: "DUP@Example.com" })
      assertRefused(taken, { email: ["A customer with this email address already exists."] })
      const elsewhere = yield* post(`${other.path}customers/`, {
        token: other.ownerToken,
        json: { email: "dup@example.com" }
      })
      assert.strictEqual(elsewhere.status, 201)
    })
  )

  it.effect("company_id must be a UUID of a company of the same organization", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const foreign = yield* company(other, "Foreign")
      for (const bad of ["not-a-uuid", "123", "0f8fad5b-d9cb-469f-a165-70867728950", 42, true]) {
        const response = yield* postCustomer(org, { email: "x@example.com", company_id: bad })
        assertRefused(response, { company_id: ["Must be a valid UUID."] }, String(bad))
      }
      const cross = yield* postCustomer(org, { email: "x@example.com", company_id: foreign.id })
      assertRefused(cross, { company_id: [`Invalid pk "${foreign.id}" - object does not exist.`] })
      const unknown = "0f8fad5b-d9cb-469f-a165-70867728950e"
      const missing = yield* postCustomer(org, { email: "x@example.com", company_id: unknown })
      assert.deepStrictEqual(missing.body, { company_id: [`Invalid pk "${unknown}" - object does not exist.`] })
    })
  )

  it.effect("booleans are validated; a manager needs a company", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const bad = yield* postCustomer(org, { email: "b@example.com", is_spam: "maybe", is_company_manager: 2 })
      assertRefused(bad, {
        is_spam: ["Must be a valid boolean (true/false, 1/0 or yes/no)."],
        is_company_manager: ["Must be a valid boolean (true/false, 1/0 or yes/no)."]
      })
      const manager = yield* postCustomer(org, { email: "m@example.com", is_company_manager: true })
      assertRefused(manager, {
        is_company_manager: ["A customer without a company cannot be its manager. Set company_id as well."]
      })
    })
  )

  it.effect("form and multipart bodies are accepted, with string booleans", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const acme = yield* company(org, "Acme")
      const path = `${org.path}customers/`
      const form = yield* post(path, {
        token: org.ownerToken,
        form: { email: "form@example.com", name: "Form", is_spam: "yes", company_id: acme.id, is_company_manager: "1" }
      })
      assert.strictEqual(form.status, 201, form.text)
      assert.strictEqual(form.body.is_spam, true)
      assert.strictEqual(form.body.is_company_manager, true)
      assert.strictEqual(form.body.company.id, acme.id)
      const multipart = yield* post(path, {
        token: org.ownerToken,
        multipart: { email: "multi@example.com", name: "Multi", is_spam: "False" }
      })
      assert.strictEqual(multipart.status, 201, multipart.text)
      assert.strictEqual(multipart.body.name, "Multi")
      assert.strictEqual(multipart.body.is_spam, false)
      const badForm = yield* post(path, {
        token: org.ownerToken,
        form: { email: "f2@example.com", is_spam: "perhaps" }
      })
      assertRefused(badForm, { is_spam: ["Must be a valid boolean (true/false, 1/0 or yes/no)."] })
      const patched = yield* patch(`${path}${form.body.id}/`, { token: org.ownerToken, form: { is_spam: "no" } })
      assert.strictEqual(patched.status, 200)
      assert.strictEqual(patched.body.is_spam, false)
    })
  )

  it.effect("malformed JSON, non-object JSON and other media types are refused without creating anything", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const path = `${org.path}customers/`
      const broken = yield* post(path, {
        token: org.ownerToken,
        body: '{"email": "x@example.com",',
        contentType: "application/json"
      })
      assert.strictEqual(broken.status, 400)
      assert.match(broken.body.detail, /^JSON parse error - /)
      const array = yield* postCustomer(org, [{ email: "x@example.com" }])
      assertRefused(array, { non_field_errors: ["Invalid data. Expected a JSON object, but got array."] })
      const text = yield* post(path, { token: org.ownerToken, body: "email=x@example.com", contentType: "text/plain" })
      assert.strictEqual(text.status, 415)
      assert.deepStrictEqual(text.body, { detail: 'Unsupported media type "text/plain" in request.' })
      const list = yield* get(path, { token: org.ownerToken })
      assert.strictEqual(list.body.count, 0)
    })
  )

  it.effect("every role reads and writes customers, members included (decision 0412); others see 404", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const path = `${org.path}customers/`
      const existing = yield* customer(org, { email: "seen@example.com" })
      const { member, admin, integration } = yield* Fixtures.staff(org)
      const outsider = yield* Fixtures.outsider
      assert.strictEqual((yield* get(path, { token: member.token })).status, 200)
      assert.strictEqual((yield* get(`${path}${existing.id}/`, { token: member.token })).status, 200)
      const byMember = yield* post(path, { token: member.token, json: { email: "m@example.com" } })
      assert.strictEqual(byMember.status, 201, byMember.text)
      const memberPatch = yield* patch(`${path}${existing.id}/`, { token: member.token, json: { name: "X" } })
      assert.strictEqual(memberPatch.status, 200, memberPatch.text)
      assert.strictEqual(memberPatch.body.name, "X")
      assert.strictEqual((yield* post(path, { token: admin.token, json: { email: "a@example.com" } })).status, 201)
      assert.strictEqual((yield* post(path, { token: integration, json: { email: "i@example.com" } })).status, 201)
      assert.strictEqual(
        (yield* patch(`${path}${existing.id}/`, { token: integration, json: { name: "Seen" } })).status,
        200
      )
      for (const send of [
        get(path, { token: outsider }),
        post(path, { token: outsider, json: { email: "o@example.com" } })
      ]) {
        const response = yield* send
        assert.strictEqual(response.status, 404)
        assert.deepStrictEqual(response.body, { detail: "Not found." })
      }
      assert.strictEqual((yield* get(path)).status, 401)
    })
  )

  it.effect("a customer of another organization is 404, as are malformed ids", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const theirs = yield* customer(other, { email: "theirs@example.com" })
      for (const pk of [String(theirs.id), "abc", "0", "-1", "1.5", "99999999999999999999"]) {
        const read = yield* get(`${org.path}customers/${pk}/`, { token: org.ownerToken })
        assert.strictEqual(read.status, 404, pk)
        assert.deepStrictEqual(read.body, { detail: "Not found." })
        const write = yield* patch(`${org.path}customers/${pk}/`, { token: org.ownerToken, json: { name: "Mine" } })
        assert.strictEqual(write.status, 404, pk)
      }
      // Their token on our path is 404 too.
      const mine = yield* customer(org, { email: "mine@example.com" })
      assert.strictEqual((yield* get(`${org.path}customers/${mine.id}/`, { token: other.ownerToken })).status, 404)
      const unchanged = yield* get(`${other.path}customers/${theirs.id}/`, { token: other.ownerToken })
      assert.strictEqual(unchanged.body.name, "")
    })
  )

  it.effect("PATCH changes any field; validation, uniqueness and the company rules apply", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const acme = yield* company(org, "Acme")
      const c = yield* customer(org, { email: "p@example.com", name: "P" })
      yield* customer(org, { email: "taken@example.com" })
      const path = `${org.path}customers/${c.id}/`
      const empty = yield* patch(path, { token: org.ownerToken, json: {} })
      assert.strictEqual(empty.status, 200)
      assert.deepStrictEqual(empty.body, c)
      const changed = yield* patch(path, {
        token: org.ownerToken,
        json: { name: "Pat", email: "pat@Example.com", is_spam: true, company_id: acme.id, is_company_manager: true }
      })
      assert.strictEqual(changed.status, 200)
      assert.deepStrictEqual(changed.body, {
        id: c.id,
        name: "Pat",
        email: "pat@example.com",
        is_spam: true,
        company: { id: acme.id, name: "Acme" },
        is_company_manager: true
      })
      const sameAddressOtherCase = yield* patch(path, { token: org.ownerToken, json: { email: "PAT@example.com" } })
      assert.strictEqual(sameAddressOtherCase.status, 200)
      assert.strictEqual(sameAddressOtherCase.body.email, "PAT@example.com")
      const taken = yield* patch(path, { token: org.ownerToken, json: { email: "Taken@example.com" } })
      assert.deepStrictEqual(taken.body, { email: ["A customer with this email address already exists."] })
      const invalid = yield* patch(path, { token: org.ownerToken, json: { name: "x".repeat(256), email: "nope" } })
      assert.deepStrictEqual(invalid.body, {
        name: ["Ensure this field has no more than 255 characters."],
        email: ["Enter a valid email address."]
      })
      const nullEmail = yield* patch(path, { token: org.ownerToken, json: { email: null } })
      assert.deepStrictEqual(nullEmail.body, { email: ["This field may not be null."] })
      const left = yield* patch(path, { token: org.ownerToken, json: { company_id: null } })
      assert.isNull(left.body.company)
      assert.isFalse(left.body.is_company_manager)
      const noCompany = yield* patch(path, { token: org.ownerToken, json: { is_company_manager: true } })
      assert.strictEqual(noCompany.status, 400)
      assert.deepStrictEqual(Object.keys(noCompany.body), ["is_company_manager"])
    })
  )

  it.effect("the list pages with absolute links, orders, searches and filters", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const acme = yield* company(org, "Acme")
      const zoe = yield* customer(org, { email: "zoe@acme.test", name: "Zoë Adams", company_id: acme.id })
      const bob = yield* customer(org, { email: "bob@example.com", name: "Bob Brown", is_spam: true })
      const amy = yield* customer(org, { email: "amy@example.org", name: "Amy Clark" })
      const path = `${org.path}customers/`
      const first = yield* get(`${path}?page_size=2`, { token: org.ownerToken })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.body.count, 3)
      assert.deepStrictEqual(
        first.body.results.map((c: { id: number }) => c.id),
        [amy.id, bob.id]
      )
      assert.isNull(first.body.previous)
      assert.strictEqual(first.body.next, `${baseUrl}${path}?page_size=2&page=2`)
      const second = yield* get(`${path}?page_size=2&page=2`, { token: org.ownerToken })
      assert.deepStrictEqual(second.body.results, [zoe])
      assert.isNull(second.body.next)
      assert.strictEqual(second.body.previous, `${baseUrl}${path}?page_size=2`)
      const past = yield* get(`${path}?page=3&page_size=2`, { token: org.ownerToken })
      assert.strictEqual(past.status, 404)
      assert.deepStrictEqual(past.body, { detail: "Invalid page." })
      const badSize = yield* get(`${path}?page_size=x`, { token: org.ownerToken })
      assert.deepStrictEqual(badSize.body, { page_size: ["A valid integer is required."] })
      const byName = yield* get(`${path}?ordering=name`, { token: org.ownerToken })
      assert.deepStrictEqual(
        byName.body.results.map((c: { name: string }) => c.name),
        ["Amy Clark", "Bob Brown", "Zoë Adams"]
      )
      const byEmailDesc = yield* get(`${path}?ordering=-email`, { token: org.ownerToken })
      assert.deepStrictEqual(
        byEmailDesc.body.results.map((c: { id: number }) => c.id),
        [zoe.id, bob.id, amy.id]
      )
      const unknown = yield* get(`${path}?ordering=password`, { token: org.ownerToken })
      assertRefused(unknown, {
        ordering: ["Unknown ordering field: password. Allowed: created_at, email, id, name."]
      })
      const accents = yield* get(`${path}?search=zoe`, { token: org.ownerToken })
      assert.deepStrictEqual(accents.body.results, [zoe])
      const byEmail = yield* get(`${path}?search=EXAMPLE.ORG`, { token: org.ownerToken })
      assert.deepStrictEqual(byEmail.body.results, [amy])
      const twoTerms = yield* get(`${path}?search=bob%20example`, { token: org.ownerToken })
      assert.deepStrictEqual(twoTerms.body.results, [bob])
      const members = yield* get(`${path}?company_id=${acme.id}`, { token: org.ownerToken })
      assert.deepStrictEqual(members.body.results, [zoe])
      const spam = yield* get(`${path}?is_spam=true`, { token: org.ownerToken })
      assert.deepStrictEqual(spam.body.results, [bob])
      const badCompany = yield* get(`${path}?company_id=acme`, { token: org.ownerToken })
      assertRefused(badCompany, { company_id: ["Must be a valid UUID."] })
      const badSpam = yield* get(`${path}?is_spam=sometimes`, { token: org.ownerToken })
      assert.strictEqual(badSpam.status, 400)
      // Another organization's customers never show.
      const other = yield* Fixtures.organization()
      yield* customer(other, { email: "zoe@acme.test" })
      assert.strictEqual((yield* get(path, { token: org.ownerToken })).body.count, 3)
    })
  )

  it.effect("arbitrary customer bodies get 2xx or a 4xx, never a 500", () =>
    Fuzz.directoryWrites("customers", { email: "target@example.com" }, [
      "name",
      "email",
      "is_spam",
      "company_id",
      "is_company_manager"
    ])
  )
})
