import { assert, layer } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { treeShape } from "./support/HelpCenterTree.js"
import { assertRefused, del, get, patch, post, TestApp, TestAppLive } from "./support/TestApp.js"
import { usesRealPostgres } from "./support/TestDatabase.js"

// Embedded PGlite multiplexes every connection onto one session, so concurrent transactions are not isolated
// there: concurrency tests run in parallel only against a real PostgreSQL server (DATABASE_URL).
const parallel = usesRealPostgres ? "unbounded" : 1

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** An organization with a member and an integration token, and its help-center paths. */
const helpCenter = Effect.gen(function* () {
  const org = yield* Fixtures.organization()
  const { member, admin, integration: token } = yield* Fixtures.staff(org)
  return {
    org,
    member,
    admin,
    token,
    owner: org.ownerToken,
    collections: `${org.path}portal/collections/`,
    tree: `${org.path}portal/collections/tree/`,
    articles: `${org.path}portal/articles/`
  }
})

const createCollection = (path: string, token: string, json: Record<string, unknown>) =>
  Effect.gen(function* () {
    const response = yield* post(path, { token, json })
    assert.strictEqual(response.status, 201, response.text)
    return response.body as { readonly id: number; readonly slug: string; readonly position: number }
  })

const createArticle = (path: string, token: string, json: Record<string, unknown>) =>
  Effect.gen(function* () {
    const response = yield* post(path, { token, json })
    assert.strictEqual(response.status, 201, response.text)
    return response.body as { readonly id: number; readonly slug: string; readonly published_at: string | null }
  })

layer(TestAppLive, { excludeTestServices: true })("help center", (it) => {
  it.effect("POST collections: 201, Location, every field, the organization's one portal, a slug from the name", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const { baseUrl } = yield* TestApp
      const response = yield* post(hc.collections, {
        token: hc.owner,
        json: { name: " Getting Started — Überblick ", meta_description: "Start here", icon: "rocket", id: 5 }
      })
      assert.strictEqual(response.status, 201, response.text)
      const c = response.body
      assert.strictEqual(response.headers.get("location"), `${baseUrl}${hc.collections}${c.id}/`)
      const portal = yield* get(`${hc.org.path}portal/`, { token: hc.member.token })
      assert.strictEqual(portal.status, 200)
      assert.deepStrictEqual(
        { ...c, id: 0, created_at: "", updated_at: "" },
        {
          id: 0,
          portal: portal.body.id,
          name: "Getting Started — Überblick",
          created_at: "",
          updated_at: "",
          parent: null,
          slug: "getting-started-uberblick",
          meta_description: "Start here",
          icon: "rocket",
          position: 0
        }
      )
      assert.match(c.created_at, ISO_MS)
      assert.match(c.updated_at, ISO_MS)
      const read = yield* get(`${hc.collections}${c.id}/`, { token: hc.member.token })
      assert.deepStrictEqual(read.body, c)
      const other = yield* helpCenter
      const otherPortal = yield* get(`${other.org.path}portal/`, { token: other.owner })
      assert.notStrictEqual(otherPortal.body.id, portal.body.id)
    })
  )

  it.effect("slugs: unique per organization (-2, -3 appended), explicit ones validated and lower-cased", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const first = yield* createCollection(hc.collections, hc.owner, { name: "FAQ" })
      const second = yield* createCollection(hc.collections, hc.owner, { name: "faq!" })
      const third = yield* createCollection(hc.collections, hc.owner, { name: "FAQ", slug: "" })
      assert.deepStrictEqual([first.slug, second.slug, third.slug], ["faq", "faq-2", "faq-3"])
      const unnamed = yield* createCollection(hc.collections, hc.owner, { name: "日本語" })
      assert.strictEqual(unnamed.slug, "collection")
      const explicit = yield* createCollection(hc.collections, hc.owner, { name: "x", slug: "My_Slug-1" })
      assert.strictEqual(explicit.slug, "my_slug-1")
      const taken = yield* post(hc.collections, { token: hc.owner, json: { name: "y", slug: "faq" } })
      assert.strictEqual(taken.status, 400)
      assert.deepStrictEqual(Object.keys(taken.body), ["slug"])
      const invalid = yield* post(hc.collections, { token: hc.owner, json: { name: "y", slug: "no spaces/here" } })
      assert.strictEqual(invalid.status, 400)
      assert.property(invalid.body, "slug")
      const tooLong = yield* post(hc.collections, { token: hc.owner, json: { name: "y", slug: "s".repeat(101) } })
      assert.property(tooLong.body, "slug")
      assert.strictEqual(
        (yield* post(hc.collections, { token: hc.owner, json: { name: "y", slug: "s".repeat(100) } })).status,
        201
      )
      // Renaming keeps the slug; a blank slug regenerates it from the (new) name.
      const renamed = yield* patch(`${hc.collections}${first.id}/`, { token: hc.owner, json: { name: "Questions" } })
      assert.strictEqual(renamed.body.slug, "faq")
      const regenerated = yield* patch(`${hc.collections}${first.id}/`, { token: hc.owner, json: { slug: "" } })
      assert.strictEqual(regenerated.body.slug, "questions")
      // Articles have their own namespace; another organization has its own too.
      const article = yield* createArticle(hc.articles, hc.owner, { collection: first.id, title: "FAQ" })
      assert.strictEqual(article.slug, "faq")
      const other = yield* helpCenter
      assert.strictEqual((yield* createCollection(other.collections, other.owner, { name: "FAQ" })).slug, "faq")
    })
  )

  it.effect("the tree: a JSON array of roots, children nested and ordered by position then id", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const empty = yield* get(hc.tree, { token: hc.member.token })
      assert.strictEqual(empty.status, 200)
      assert.deepStrictEqual(empty.body, [])
      const b = yield* createCollection(hc.collections, hc.owner, { name: "B", position: 2 })
      const a = yield* createCollection(hc.collections, hc.owner, { name: "A", position: 1 })
      const a2 = yield* createCollection(hc.collections, hc.owner, { name: "A2", parent: a.id, position: 5 })
      const a1 = yield* createCollection(hc.collections, hc.owner, { name: "A1", parent: a.id, position: 5 })
      const a0 = yield* createCollection(hc.collections, hc.owner, { name: "A0", parent: a.id, position: 0 })
      const deep = yield* createCollection(hc.collections, hc.owner, { name: "A1x", parent: a1.id })
      const response = yield* get(hc.tree, { token: hc.member.token })
      assert.strictEqual(response.status, 200)
      assert.isArray(response.body)
      assert.deepStrictEqual(treeShape(response.body), [
        {
          id: a.id,
          children: [
            { id: a0.id, children: [] },
            { id: a2.id, children: [] },
            { id: a1.id, children: [{ id: deep.id, children: [] }] }
          ]
        },
        { id: b.id, children: [] }
      ])
      const node = response.body[0]
      assert.deepStrictEqual(Object.keys(node).sort(), [
        "children",
        "created_at",
        "icon",
        "id",
        "meta_description",
        "name",
        "parent",
        "position",
        "slug",
        "updated_at"
      ])
      assert.strictEqual(node.children[2].children[0].parent, a1.id)
    })
  )

  it.effect("include_articles: true/1/yes embed articles; other values and none leave them out", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const root = yield* createCollection(hc.collections, hc.owner, { name: "Root" })
      const child = yield* createCollection(hc.collections, hc.owner, { name: "Child", parent: root.id })
      const second = yield* createArticle(hc.articles, hc.owner, { collection: root.id, title: "Second", position: 2 })
      const first = yield* createArticle(hc.articles, hc.owner, { collection: root.id, title: "First", position: 1 })
      for (const value of ["true", "1", "yes", "YES"]) {
        const response = yield* get(`${hc.tree}?include_articles=${value}`, { token: hc.member.token })
        assert.deepStrictEqual(
          treeShape(response.body),
          [{ id: root.id, children: [{ id: child.id, children: [], articles: [] }], articles: [first.id, second.id] }],
          value
        )
      }
      const article = (yield* get(`${hc.tree}?include_articles=1`, { token: hc.owner })).body[0].articles[0]
      assert.deepStrictEqual(Object.keys(article).sort(), [
        "created_at",
        "id",
        "meta_description",
        "position",
        "published_at",
        "slug",
        "status",
        "title",
        "updated_at"
      ])
      for (const query of [
        "?include_articles=false",
        "?include_articles=0",
        "?include_articles=no",
        "?include_articles=",
        "?include_articles=on",
        ""
      ]) {
        const response = yield* get(`${hc.tree}${query}`, { token: hc.member.token })
        assert.strictEqual(response.status, 200)
        assert.isFalse("articles" in response.body[0], query)
        assert.isFalse("articles" in response.body[0].children[0], query)
      }
    })
  )

  it.effect("the publication filter: true keeps published, false keeps the rest, empty or absent keeps all", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const root = yield* createCollection(hc.collections, hc.owner, { name: "Root" })
      const live = yield* createArticle(hc.articles, hc.owner, {
        collection: root.id,
        title: "Live",
        status: "published"
      })
      const draft = yield* createArticle(hc.articles, hc.owner, { collection: root.id, title: "Draft" })
      const articlesFor = (query: string) =>
        Effect.map(get(`${hc.tree}?include_articles=true${query}`, { token: hc.member.token }), (response) => {
          assert.strictEqual(response.status, 200, response.text)
          return response.body[0].articles.map((a: { id: number }) => a.id)
        })
      for (const value of ["true", "1", "yes"])
        assert.deepStrictEqual(yield* articlesFor(`&published=${value}`), [live.id])
      for (const value of ["false", "0", "no"])
        assert.deepStrictEqual(yield* articlesFor(`&published=${value}`), [draft.id])
      assert.deepStrictEqual(yield* articlesFor("&published="), [live.id, draft.id])
      assert.deepStrictEqual(yield* articlesFor(""), [live.id, draft.id])
      const bad = yield* get(`${hc.tree}?include_articles=true&published=maybe`, { token: hc.member.token })
      assert.strictEqual(bad.status, 400)
      assert.property(bad.body, "published")
      // Without include_articles the filter is not read at all.
      const ignored = yield* get(`${hc.tree}?published=maybe`, { token: hc.member.token })
      assert.strictEqual(ignored.status, 200)
      assert.isFalse("articles" in ignored.body[0])
    })
  )

  it.effect("moves: no cycles (400), parent of the same organization only, moved collections go last", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const top = yield* createCollection(hc.collections, hc.owner, { name: "Top" })
      const mid = yield* createCollection(hc.collections, hc.owner, { name: "Mid", parent: top.id })
      const leaf = yield* createCollection(hc.collections, hc.owner, { name: "Leaf", parent: mid.id })
      const other = yield* createCollection(hc.collections, hc.owner, { name: "Other" })
      for (const parent of [top.id, mid.id, leaf.id]) {
        const response = yield* patch(`${hc.collections}${top.id}/`, { token: hc.owner, json: { parent } })
        assertRefused(
          response,
          {
            parent: ["A collection cannot be moved under itself or one of its descendants."]
          },
          `under ${parent}`
        )
      }
      assert.deepStrictEqual(treeShape((yield* get(hc.tree, { token: hc.owner })).body), [
        { id: top.id, children: [{ id: mid.id, children: [{ id: leaf.id, children: [] }] }] },
        { id: other.id, children: [] }
      ])
      yield* createCollection(hc.collections, hc.owner, { name: "Sibling", parent: other.id, position: 4 })
      const moved = yield* patch(`${hc.collections}${mid.id}/`, { token: hc.owner, json: { parent: other.id } })
      assert.strictEqual(moved.status, 200)
      assert.strictEqual(moved.body.parent, other.id)
      assert.strictEqual(moved.body.position, 5)
      const toRoot = yield* patch(`${hc.collections}${leaf.id}/`, { token: hc.owner, form: { parent: "" } })
      assert.strictEqual(toRoot.status, 200, toRoot.text)
      assert.isNull(toRoot.body.parent)

      const foreign = yield* helpCenter
      const theirs = yield* createCollection(foreign.collections, foreign.owner, { name: "Theirs" })
      for (const parent of [theirs.id, 999999999]) {
        const response = yield* post(hc.collections, { token: hc.owner, json: { name: "x", parent } })
        assert.deepStrictEqual(response.body, { parent: [`Invalid pk "${parent}" - object does not exist.`] })
        const move = yield* patch(`${hc.collections}${top.id}/`, { token: hc.owner, json: { parent } })
        assert.strictEqual(move.status, 400)
      }
      const notInt = yield* post(hc.collections, { token: hc.owner, json: { name: "x", parent: "abc" } })
      assert.strictEqual(notInt.status, 400)
      assert.property(notInt.body, "parent")
    })
  )

  it.effect("nesting is limited to 10 levels", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      let parent: number | null = null
      for (let level = 1; level <= 10; level++)
        parent = (yield* createCollection(hc.collections, hc.owner, { name: `L${level}`, parent })).id
      const eleventh = yield* post(hc.collections, { token: hc.owner, json: { name: "L11", parent } })
      assertRefused(eleventh, { parent: ["Collections nest at most 10 levels deep."] })
    })
  )

  it.effect("delete: a collection with sub-collections or articles is refused; an empty one is 204", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const parent = yield* createCollection(hc.collections, hc.owner, { name: "Parent" })
      const child = yield* createCollection(hc.collections, hc.owner, { name: "Child", parent: parent.id })
      const article = yield* createArticle(hc.articles, hc.owner, { collection: child.id, title: "A" })
      const refused = yield* del(`${hc.collections}${parent.id}/`, { token: hc.owner })
      assert.strictEqual(refused.status, 400)
      assert.property(refused.body, "non_field_errors")
      assert.strictEqual((yield* del(`${hc.collections}${child.id}/`, { token: hc.owner })).status, 400)
      assert.strictEqual((yield* del(`${hc.articles}${article.id}/`, { token: hc.owner })).status, 204)
      const deleted = yield* del(`${hc.collections}${child.id}/`, { token: hc.owner })
      assert.strictEqual(deleted.status, 204)
      assert.strictEqual(deleted.text, "")
      assert.strictEqual((yield* get(`${hc.collections}${child.id}/`, { token: hc.owner })).status, 404)
      assert.strictEqual((yield* del(`${hc.collections}${parent.id}/`, { token: hc.owner })).status, 204)
      assert.deepStrictEqual((yield* get(hc.tree, { token: hc.owner })).body, [])
    })
  )

  it.effect("articles: published_at is set when first published and kept afterwards", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const collection = yield* createCollection(hc.collections, hc.owner, { name: "Guides" })
      const created = yield* post(hc.articles, {
        token: hc.owner,
        json: { collection: collection.id, title: "Reset your password", body: "Step 1…", meta_description: "How to" }
      })
      assert.strictEqual(created.status, 201, created.text)
      const article = created.body
      assert.strictEqual(article.status, "draft")
      assert.isNull(article.published_at)
      assert.strictEqual(article.slug, "reset-your-password")
      assert.strictEqual(article.collection, collection.id)
      assert.strictEqual(article.body, "Step 1…")
      assert.strictEqual(article.position, 0)
      const url = `${hc.articles}${article.id}/`
      const published = yield* patch(url, { token: hc.owner, json: { status: "published" } })
      assert.strictEqual(published.status, 200)
      assert.match(published.body.published_at, ISO_MS)
      const unpublished = yield* patch(url, { token: hc.owner, json: { status: "draft" } })
      assert.strictEqual(unpublished.body.published_at, published.body.published_at)
      const republished = yield* patch(url, { token: hc.owner, json: { status: "published" } })
      assert.strictEqual(republished.body.published_at, published.body.published_at)
      const direct = yield* createArticle(hc.articles, hc.owner, {
        collection: collection.id,
        title: "Live",
        status: "published"
      })
      assert.match(direct.published_at ?? "", ISO_MS)
      const badStatus = yield* patch(url, { token: hc.owner, json: { status: "archived" } })
      assert.strictEqual(badStatus.status, 400)
      assert.property(badStatus.body, "status")
      // Listing by collection and status.
      const live = yield* get(`${hc.articles}?collection=${collection.id}&status=published`, { token: hc.member.token })
      assert.strictEqual(live.body.count, 2)
      const drafts = yield* get(`${hc.articles}?status=draft`, { token: hc.member.token })
      assert.strictEqual(drafts.body.count, 0)
      assert.strictEqual((yield* get(`${hc.articles}?status=archived`, { token: hc.owner })).status, 400)
      assert.strictEqual((yield* get(`${hc.articles}?collection=abc`, { token: hc.owner })).status, 400)
    })
  )

  it.effect("articles belong to a collection of the same organization; moving one puts it last", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const one = yield* createCollection(hc.collections, hc.owner, { name: "One" })
      const two = yield* createCollection(hc.collections, hc.owner, { name: "Two" })
      yield* createArticle(hc.articles, hc.owner, { collection: two.id, title: "There", position: 9 })
      const article = yield* createArticle(hc.articles, hc.owner, { collection: one.id, title: "Here" })
      const moved = yield* patch(`${hc.articles}${article.id}/`, { token: hc.owner, json: { collection: two.id } })
      assert.strictEqual(moved.body.collection, two.id)
      assert.strictEqual(moved.body.position, 10)
      const foreign = yield* helpCenter
      const theirs = yield* createCollection(foreign.collections, foreign.owner, { name: "Theirs" })
      const refused = yield* post(hc.articles, { token: hc.owner, json: { collection: theirs.id, title: "x" } })
      assert.deepStrictEqual(refused.body, { collection: [`Invalid pk "${theirs.id}" - object does not exist.`] })
      const missing = yield* post(hc.articles, { token: hc.owner, json: { title: "x" } })
      assert.deepStrictEqual(missing.body, { collection: ["This field is required."] })
    })
  )

  it.effect("roles: members read and get 403 on writes; owners, admins and tokens write", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const byToken = yield* createCollection(hc.collections, hc.token, { name: "By token" })
      const byAdmin = yield* createCollection(hc.collections, hc.admin.token, { name: "By admin" })
      const article = yield* createArticle(hc.articles, hc.token, { collection: byToken.id, title: "T" })
      const m = hc.member.token
      for (const path of [
        hc.collections,
        hc.tree,
        `${hc.collections}${byToken.id}/`,
        hc.articles,
        `${hc.articles}${article.id}/`
      ])
        assert.strictEqual((yield* get(path, { token: m })).status, 200, path)
      const writes = [
        post(hc.collections, { token: m, json: { name: "x" } }),
        patch(`${hc.collections}${byAdmin.id}/`, { token: m, json: { name: "x" } }),
        del(`${hc.collections}${byAdmin.id}/`, { token: m }),
        post(hc.articles, { token: m, json: { collection: byToken.id, title: "x" } }),
        patch(`${hc.articles}${article.id}/`, { token: m, json: { title: "x" } }),
        del(`${hc.articles}${article.id}/`, { token: m })
      ]
      for (const write of writes) {
        const response = yield* write
        assert.strictEqual(response.status, 403)
        assert.deepStrictEqual(response.body, { detail: "You do not have permission to perform this action." })
      }
      assert.strictEqual(
        (yield* patch(`${hc.articles}${article.id}/`, { token: hc.admin.token, json: { title: "y" } })).status,
        200
      )
      assert.strictEqual((yield* del(`${hc.articles}${article.id}/`, { token: hc.token })).status, 204)
    })
  )

  it.effect("another organization's collections and articles are 404", () =>
    Effect.gen(function* () {
      const a = yield* helpCenter
      const b = yield* helpCenter
      const collection = yield* createCollection(a.collections, a.owner, { name: "A's" })
      const article = yield* createArticle(a.articles, a.owner, { collection: collection.id, title: "A's" })
      for (const [path, json] of [
        [`${b.collections}${collection.id}/`, { name: "x" }],
        [`${b.articles}${article.id}/`, { title: "x" }]
      ] as const) {
        assert.strictEqual((yield* get(path, { token: b.owner })).status, 404)
        assert.strictEqual((yield* patch(path, { token: b.owner, json })).status, 404)
        assert.strictEqual((yield* del(path, { token: b.owner })).status, 404)
      }
      assert.strictEqual((yield* get(a.tree, { token: b.owner })).status, 404)
      assert.strictEqual((yield* get(a.collections, { token: b.token })).status, 404)
      assert.strictEqual((yield* post(a.collections, { token: b.token, json: { name: "x" } })).status, 404)
      assert.strictEqual((yield* get(`${a.collections}abc/`, { token: a.owner })).status, 404)
      assert.strictEqual((yield* get(`${a.articles}0/`, { token: a.owner })).status, 404)
      assert.deepStrictEqual((yield* get(b.tree, { token: b.owner })).body, [])
    })
  )

  it.effect("bodies: form and multipart accepted; broken JSON 400; other media types 415; bad fields 400", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const form = yield* post(hc.collections, { token: hc.owner, form: { name: "Form", position: "4", parent: "" } })
      assert.strictEqual(form.status, 201, form.text)
      assert.strictEqual(form.body.position, 4)
      assert.isNull(form.body.parent)
      const multipart = yield* post(hc.articles, {
        token: hc.owner,
        multipart: { collection: String(form.body.id), title: "Multi", status: "published" }
      })
      assert.strictEqual(multipart.status, 201, multipart.text)
      assert.strictEqual(multipart.body.status, "published")
      const broken = yield* post(hc.collections, { token: hc.owner, body: "{", contentType: "application/json" })
      assert.strictEqual(broken.status, 400)
      assert.match(broken.body.detail, /^JSON parse error - /)
      assert.strictEqual(
        (yield* post(hc.articles, { token: hc.owner, body: "x", contentType: "text/plain" })).status,
        415
      )
      const fields = yield* post(hc.collections, {
        token: hc.owner,
        json: { name: "n".repeat(256), position: -1, meta_description: "m".repeat(501), icon: 5 }
      })
      assert.strictEqual(fields.status, 400)
      assert.deepStrictEqual(Object.keys(fields.body).sort(), ["meta_description", "name", "position"])
      const article = yield* post(hc.articles, {
        token: hc.owner,
        json: { collection: form.body.id, title: "t".repeat(256), body: "b".repeat(100_001) }
      })
      assert.deepStrictEqual(Object.keys(article.body).sort(), ["body", "title"])
    })
  )

  it.effect("concurrent writes: crossing moves never make a cycle; same-name collections get distinct slugs", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const left = yield* createCollection(hc.collections, hc.owner, { name: "Left" })
      const right = yield* createCollection(hc.collections, hc.owner, { name: "Right" })
      const [one, two] = yield* Effect.all(
        [
          patch(`${hc.collections}${left.id}/`, { token: hc.owner, json: { parent: right.id } }),
          patch(`${hc.collections}${right.id}/`, { token: hc.owner, json: { parent: left.id } })
        ],
        { concurrency: parallel }
      )
      assert.deepStrictEqual([one.status, two.status].sort(), [200, 400])
      const tree = (yield* get(hc.tree, { token: hc.owner })).body
      assert.lengthOf(tree, 1)
      assert.lengthOf(tree[0].children, 1)
      const created = yield* Effect.all(
        Array.from({ length: 6 }, () => post(hc.collections, { token: hc.owner, json: { name: "Same" } })),
        { concurrency: parallel }
      )
      assert.deepStrictEqual(
        created.map((r) => r.status),
        [201, 201, 201, 201, 201, 201]
      )
      assert.deepStrictEqual(created.map((r) => r.body.slug).sort(), [
        "same",
        "same-2",
        "same-3",
        "same-4",
        "same-5",
        "same-6"
      ])
    })
  )

  it.effect("/openapi.json documents the tree's include_articles and published parameters", () =>
    Effect.gen(function* () {
      const spec = (yield* get("/openapi.json")).body
      const tree = spec.paths["/organizations/{organization_id}/portal/collections/tree/"].get
      const parameters = Object.fromEntries(
        tree.parameters.map((p: { name: string; schema: { description?: string } }) => [p.name, p])
      )
      assert.include(JSON.stringify(parameters.include_articles), "yes")
      assert.include(JSON.stringify(parameters.published), "status=published")
      assert.property(spec.paths, "/organizations/{organization_id}/custom-preset-filters/{filter_id}/")
    })
  )

  it.effect("arbitrary JSON bodies and tree queries never give a 500", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const collection = yield* createCollection(hc.collections, hc.owner, { name: "Target" })
      const article = yield* createArticle(hc.articles, hc.owner, { collection: collection.id, title: "Target" })
      const bodies = FastCheck.sample(
        FastCheck.oneof(
          FastCheck.jsonValue(),
          FastCheck.record({
            name: FastCheck.jsonValue(),
            title: FastCheck.jsonValue(),
            parent: FastCheck.jsonValue(),
            collection: FastCheck.jsonValue(),
            slug: FastCheck.jsonValue(),
            position: FastCheck.jsonValue(),
            status: FastCheck.jsonValue()
          })
        ),
        { numRuns: 30, seed: 7 }
      )
      for (const json of bodies) {
        for (const [method, path] of [
          [post, hc.collections],
          [patch, `${hc.collections}${collection.id}/`],
          [post, hc.articles],
          [patch, `${hc.articles}${article.id}/`]
        ] as const) {
          const response = yield* method(path, { token: hc.owner, json })
          assert.isBelow(response.status, 500, `${path} ${JSON.stringify(json)} → ${response.text}`)
        }
      }
      for (const value of FastCheck.sample(FastCheck.string(), { numRuns: 20, seed: 3 })) {
        const query = `?include_articles=1&published=${encodeURIComponent(value)}`
        const response = yield* get(`${hc.tree}${query}`, { token: hc.member.token })
        assert.include([200, 400], response.status, query)
      }
    })
  )

  it.effect("the flat list pages through every collection at any depth", () =>
    Effect.gen(function* () {
      const hc = yield* helpCenter
      const root = yield* createCollection(hc.collections, hc.owner, { name: "Root" })
      yield* createCollection(hc.collections, hc.owner, { name: "Child", parent: root.id })
      yield* createCollection(hc.collections, hc.owner, { name: "Other" })
      const page = yield* get(`${hc.collections}?page_size=2&ordering=name`, { token: hc.member.token })
      assert.strictEqual(page.status, 200)
      assert.strictEqual(page.body.count, 3)
      assert.deepStrictEqual(
        page.body.results.map((c: { name: string }) => c.name),
        ["Child", "Other"]
      )
      assert.match(page.body.next, /page=2/)
      assert.strictEqual(page.body.results[0].parent, root.id)
      assert.strictEqual((yield* get(`${hc.collections}?page=9`, { token: hc.owner })).status, 404)
      assert.strictEqual((yield* get(`${hc.collections}?ordering=slug`, { token: hc.owner })).status, 400)
    })
  )
})
