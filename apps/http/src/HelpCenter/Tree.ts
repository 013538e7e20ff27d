/**
 * The collection tree as pure functions: building the nested nodes from flat rows, and the rules a move must
 * keep (no cycles, a bounded depth). See docs/decisions/0603-help-center-tree.md.
 */

/** Deepest nesting: a root collection is at depth 1. */
export const MAX_DEPTH = 10

/** What the tree needs of a collection. */
export interface TreeCollection {
  readonly id: number
  readonly parent: number | null
  readonly position: number
}

/** What the tree needs of an article. */
export interface TreeArticle {
  readonly id: number
  readonly collection: number
  readonly position: number
}

/** A node: the collection, its children and (when asked for) its articles, each ordered by position then id. */
export type TreeNode<C, A> = C & {
  readonly children: ReadonlyArray<TreeNode<C, A>>
  readonly articles?: ReadonlyArray<A>
}

const byPosition = (a: { readonly position: number; readonly id: number }, b: typeof a) =>
  a.position - b.position || a.id - b.id

const groupBy = <A, K>(items: ReadonlyArray<A>, key: (a: A) => K): Map<K, Array<A>> => {
  const groups = new Map<K, Array<A>>()
  for (const item of items) {
    const k = key(item)
    const group = groups.get(k)
    if (group === undefined) groups.set(k, [item])
    else group.push(item)
  }
  return groups
}

/**
 * Nests flat collections into trees of root collections (`parent` null). With `articles` given, every node gets
 * its `articles` (possibly empty); without, nodes have no `articles` key. A collection whose parent is not in
 * the list is shown as a root, so a tree is never silently truncated.
 */
export const buildTree = <C extends TreeCollection, A extends TreeArticle>(
  collections: ReadonlyArray<C>,
  articles?: ReadonlyArray<A>
): ReadonlyArray<TreeNode<C, A>> => {
  const ids = new Set(collections.map((c) => c.id))
  const children = groupBy(collections, (c) => (c.parent !== null && ids.has(c.parent) ? c.parent : null))
  const articlesOf = articles === undefined ? undefined : groupBy(articles, (a) => a.collection)
  const nodeOf = (collection: C): TreeNode<C, A> => ({
    ...collection,
    children: [...(children.get(collection.id) ?? [])].sort(byPosition).map(nodeOf),
    ...(articlesOf === undefined ? {} : { articles: [...(articlesOf.get(collection.id) ?? [])].sort(byPosition) })
  })
  return [...(children.get(null) ?? [])].sort(byPosition).map(nodeOf)
}

/** Depth of a collection (a root is 1), following parents in `parentOf`. */
export const depthOf = (parentOf: ReadonlyMap<number, number | null>, id: number): number => {
  let depth = 1
  let current = parentOf.get(id) ?? null
  while (current !== null && depth <= parentOf.size) {
    depth++
    current = parentOf.get(current) ?? null
  }
  return depth
}

/** Height of the subtree under a collection (a leaf is 1). */
export const heightOf = (parentOf: ReadonlyMap<number, number | null>, id: number): number => {
  const children = new Map<number, Array<number>>()
  for (const [child, parent] of parentOf)
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), child])
  let height = 0
  let level = [id]
  const seen = new Set<number>()
  while (level.length > 0) {
    height++
    const next: Array<number> = []
    for (const node of level) {
      if (seen.has(node)) continue
      seen.add(node)
      next.push(...(children.get(node) ?? []))
    }
    level = next
  }
  return height
}

/** Why a collection cannot go under a parent. */
export type MoveRefusal = "cycle" | "too_deep"

/**
 * Whether `id` (an existing collection, or undefined for a new one) may go under `parent`: not under itself or
 * one of its descendants, and the moved subtree must stay within {@link MAX_DEPTH}.
 */
export const refuseMove = (
  parentOf: ReadonlyMap<number, number | null>,
  id: number | undefined,
  parent: number | null
): MoveRefusal | undefined => {
  if (parent === null) return id === undefined || heightOf(parentOf, id) <= MAX_DEPTH ? undefined : "too_deep"
  if (id !== undefined) {
    let current: number | null = parent
    for (let steps = 0; current !== null && steps <= parentOf.size; steps++) {
      if (current === id) return "cycle"
      current = parentOf.get(current) ?? null
    }
  }
  const height = id === undefined ? 1 : heightOf(parentOf, id)
  return depthOf(parentOf, parent) + height > MAX_DEPTH ? "too_deep" : undefined
}
