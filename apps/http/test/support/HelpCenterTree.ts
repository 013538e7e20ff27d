/** A collection of a help center's tree, as the API answers it and as `buildTree` builds it. */
export interface TreeNode {
  readonly id: number
  readonly children: ReadonlyArray<TreeNode>
  readonly articles?: ReadonlyArray<{ readonly id: number }>
}

/** A tree reduced to its ids (and its articles' ids, where it has them), for comparing the nesting and order. */
export const treeShape = (nodes: ReadonlyArray<TreeNode>): unknown =>
  nodes.map((n) => ({
    id: n.id,
    children: treeShape(n.children),
    ...(n.articles === undefined ? {} : { articles: n.articles.map((a) => a.id) })
  }))
