import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck, Schema } from "effect"
import { type ArticleNode, CollectionNode, encodeCollectionNode } from "../src/HelpCenter/Collection.js"
import { MAX_SLUG_LENGTH, SLUG_PATTERN, slugify, uniqueSlug } from "../src/HelpCenter/Slugs.js"
import { buildTree, depthOf, MAX_DEPTH, refuseMove } from "../src/HelpCenter/Tree.js"
import { includesArticles, parseTreeQuery } from "../src/HelpCenter/TreeQuery.js"
import { treeShape } from "./support/HelpCenterTree.js"

const c = (id: number, parent: number | null, position: number) => ({ id, parent, position, name: `c${id}` })
const a = (id: number, collection: number, position: number) => ({ id, collection, position })

describe("buildTree", () => {
  it("nests by parent and orders every level by position, then id", () => {
    const tree = buildTree([c(1, null, 2), c(2, null, 1), c(3, 1, 5), c(4, 1, 0), c(5, 4, 0), c(6, 1, 0)])
    assert.deepStrictEqual(treeShape(tree), [
      { id: 2, children: [] },
      {
        id: 1,
        children: [
          { id: 4, children: [{ id: 5, children: [] }] },
          { id: 6, children: [] },
          { id: 3, children: [] }
        ]
      }
    ])
  })

  it("without articles, nodes have no `articles` key; with them, every node has a list ordered by position", () => {
    const collections = [c(1, null, 0), c(2, 1, 0)]
    const without = buildTree(collections)
    assert.isFalse("articles" in without[0]!)
    const withArticles = buildTree(collections, [a(10, 1, 3), a(11, 1, 1), a(12, 1, 1)])
    assert.deepStrictEqual(treeShape(withArticles), [
      { id: 1, children: [{ id: 2, children: [], articles: [] }], articles: [11, 12, 10] }
    ])
  })

  it("shows a collection whose parent is missing as a root rather than dropping it", () => {
    assert.deepStrictEqual(treeShape(buildTree([c(7, 99, 0)])), [{ id: 7, children: [] }])
  })
})

describe("refuseMove", () => {
  // 1 ─ 2 ─ 3 ─ 4, and 5 alone
  const parents = new Map<number, number | null>([
    [1, null],
    [2, 1],
    [3, 2],
    [4, 3],
    [5, null]
  ])

  it("refuses a collection under itself or any of its descendants", () => {
    assert.strictEqual(refuseMove(parents, 2, 2), "cycle")
    assert.strictEqual(refuseMove(parents, 2, 3), "cycle")
    assert.strictEqual(refuseMove(parents, 1, 4), "cycle")
  })

  it("allows moves to other branches, to the root, and new collections anywhere shallow enough", () => {
    assert.isUndefined(refuseMove(parents, 4, 1))
    assert.isUndefined(refuseMove(parents, 2, 5))
    assert.isUndefined(refuseMove(parents, 3, null))
    assert.isUndefined(refuseMove(parents, undefined, 4))
  })

  it(`allows nesting ${MAX_DEPTH} levels deep and refuses level ${MAX_DEPTH + 1}, also for moved subtrees`, () => {
    const chain = new Map<number, number | null>(
      Array.from({ length: MAX_DEPTH }, (_, i) => [i + 1, i === 0 ? null : i] as const)
    )
    assert.strictEqual(depthOf(chain, MAX_DEPTH), MAX_DEPTH)
    assert.isUndefined(refuseMove(chain, undefined, MAX_DEPTH - 1))
    assert.strictEqual(refuseMove(chain, undefined, MAX_DEPTH), "too_deep")
    // A two-level subtree (100 ─ 101) fits under depth 8, not under depth 9.
    const withSubtree = new Map(chain)
    withSubtree.set(100, null)
    withSubtree.set(101, 100)
    assert.isUndefined(refuseMove(withSubtree, 100, MAX_DEPTH - 2))
    assert.strictEqual(refuseMove(withSubtree, 100, MAX_DEPTH - 1), "too_deep")
  })

  it.prop(
    "in any forest, a move is a cycle exactly when the new parent is the collection or below it",
    [FastCheck.array(FastCheck.nat(), { minLength: 1, maxLength: 30 }), FastCheck.nat(), FastCheck.nat()],
    ([seeds, pick, target]) => {
      // Collection i + 1 hangs under a lower-numbered collection or at the root: always a forest.
      const parents = new Map<number, number | null>(
        seeds.map((seed, i) => [i + 1, i === 0 || seed % 3 === 0 ? null : (seed % i) + 1] as const)
      )
      const id = (pick % seeds.length) + 1
      const parent = (target % seeds.length) + 1
      const below = (node: number): boolean => {
        for (let current: number | null = node; current !== null; current = parents.get(current) ?? null)
          if (current === id) return true
        return false
      }
      assert.strictEqual(refuseMove(parents, id, parent) === "cycle", below(parent))
    }
  )
})

describe("encodeCollectionNode", () => {
  const date = FastCheck.date({
    min: new Date("2000-01-01T00:00:00Z"),
    max: new Date("2100-01-01T00:00:00Z"),
    noInvalidDate: true
  })
  it.prop(
    "gives the same JSON as the CollectionNode schema, with and without articles",
    [
      FastCheck.array(FastCheck.tuple(FastCheck.nat(), FastCheck.nat({ max: 20 }), date, FastCheck.string()), {
        minLength: 1,
        maxLength: 25
      }),
      FastCheck.array(FastCheck.tuple(FastCheck.nat(), FastCheck.boolean(), FastCheck.option(date)), { maxLength: 30 }),
      FastCheck.boolean()
    ],
    ([seeds, articleSeeds, withArticles]) => {
      const collections = seeds.map(([seed, position, at, name], i) => ({
        id: i + 1,
        parent: i === 0 || seed % 3 === 0 ? null : (seed % i) + 1,
        name,
        slug: `c${i + 1}`,
        meta_description: name,
        icon: "",
        position,
        created_at: at,
        updated_at: at
      }))
      const articles = articleSeeds.map(([seed, published, at], i) => ({
        id: i + 1,
        collection: (seed % collections.length) + 1,
        title: `a${i}`,
        slug: `a${i}`,
        status: published ? ("published" as const) : ("draft" as const),
        meta_description: "",
        position: seed % 7,
        created_at: collections[0]!.created_at,
        updated_at: collections[0]!.created_at,
        published_at: at
      }))
      const strip = (
        nodes: ReadonlyArray<
          ReturnType<typeof buildTree<(typeof collections)[number], (typeof articles)[number]>>[number]
        >
      ): ReadonlyArray<CollectionNode> =>
        nodes.map(({ children, articles: embedded, ...rest }) => ({
          ...rest,
          children: strip(children),
          ...(embedded === undefined ? {} : { articles: embedded.map(({ collection: _c, ...a }): ArticleNode => a) })
        }))
      const tree = strip(buildTree(collections, withArticles ? articles : undefined))
      assert.deepStrictEqual(tree.map(encodeCollectionNode), Schema.encodeSync(Schema.Array(CollectionNode))(tree))
    }
  )
})

describe("slugs", () => {
  it("slugify folds accents, lower-cases and joins words with single dashes", () => {
    assert.strictEqual(slugify("  Getting Started — Überblick!  "), "getting-started-uberblick")
    assert.strictEqual(slugify("FAQ & Billing/Invoices"), "faq-billing-invoices")
    assert.strictEqual(slugify("日本語"), "")
    assert.strictEqual(slugify(`${"a".repeat(99)} b`), "a".repeat(99))
  })

  it("uniqueSlug appends -2, -3… and falls back when the name has no slug", () => {
    assert.strictEqual(uniqueSlug("faq", new Set(), "collection"), "faq")
    assert.strictEqual(uniqueSlug("faq", new Set(["faq", "faq-2"]), "collection"), "faq-3")
    assert.strictEqual(uniqueSlug("", new Set(["collection"]), "collection"), "collection-2")
  })

  it.prop(
    "a generated slug is free, valid and at most 100 characters",
    [FastCheck.string({ maxLength: 150 }), FastCheck.array(FastCheck.nat({ max: 5 }), { maxLength: 5 })],
    ([text, suffixes]) => {
      const base = slugify(text)
      const root = base === "" ? "article" : base
      const taken = new Set([root, ...suffixes.map((n) => `${root.slice(0, MAX_SLUG_LENGTH - 2)}-${n}`)])
      const slug = uniqueSlug(base, taken, "article")
      assert.isFalse(taken.has(slug))
      assert.isAtMost(slug.length, MAX_SLUG_LENGTH)
      assert.match(slug, SLUG_PATTERN)
    }
  )
})

describe("tree query", () => {
  it("include_articles: true, 1 and yes (any case) are true; anything else is false", () => {
    for (const value of ["true", "1", "yes", "TRUE", "Yes", " true "]) assert.isTrue(includesArticles(value), value)
    for (const value of [undefined, "", "false", "0", "no", "on", "y", "2", "truthy"])
      assert.isFalse(includesArticles(value), String(value))
  })

  it.effect("published: ignored without articles; true/false/empty select; other values are 400", () =>
    Effect.gen(function* () {
      assert.isUndefined(yield* parseTreeQuery({ published: "nonsense" }))
      assert.strictEqual(yield* parseTreeQuery({ include_articles: "1" }), "all")
      assert.strictEqual(yield* parseTreeQuery({ include_articles: "1", published: "" }), "all")
      assert.strictEqual(yield* parseTreeQuery({ include_articles: "1", published: "true" }), "published")
      assert.strictEqual(yield* parseTreeQuery({ include_articles: "1", published: "0" }), "unpublished")
      const error = yield* Effect.flip(parseTreeQuery({ include_articles: "yes", published: "maybe" }))
      assert.property(error.errors, "published")
    })
  )
})
