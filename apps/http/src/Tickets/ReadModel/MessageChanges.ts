/**
 * What an event changed in a ticket's messages, in time proportional to the messages compared and without a
 * lookup table in the usual case. The domain's `evolve` keeps a message it did not change as the same object, and
 * keeps the messages in their order, so a reply's new message list is the old one, object for object, plus one at
 * the end: comparing by position settles it. A table by id is built only when the lists stop lining up (a message
 * removed or moved by a merge). Message ids are unique within a list.
 */

/** A message as these functions see it: an object with its id. */
interface WithId {
  readonly id: number
}

/**
 * Calls `onChanged` for each message of `after` that is not the same object in `before` (found by id): the new
 * messages and the changed ones, in `after`'s order.
 */
export const forEachChanged = <M extends WithId>(
  before: ReadonlyArray<M>,
  after: ReadonlyArray<M>,
  onChanged: (message: M) => void
): void => {
  let byId: Map<number, M> | undefined
  // Every message of `before` so far has its id at the same position in `after`.
  let aligned = true
  for (let i = 0; i < after.length; i++) {
    const message = after[i]!
    if (i < before.length) {
      const old = before[i]!
      if (old === message) continue
      if (old.id === message.id) {
        onChanged(message)
        continue
      }
      aligned = false
    } else if (aligned) {
      // Every id of `before` is at its own position in `after`: this one is new.
      onChanged(message)
      continue
    }
    byId ??= new Map(before.map((m) => [m.id, m]))
    if (byId.get(message.id) !== message) onChanged(message)
  }
}

/** The ids of the messages of `before` that `after` no longer has, in `before`'s order. */
export const removedIds = <M extends WithId>(before: ReadonlyArray<M>, after: ReadonlyArray<M>): Array<number> => {
  if (before === after) return []
  let i = 0
  while (i < before.length && i < after.length && before[i]!.id === after[i]!.id) i++
  if (i === before.length) return []
  const kept = new Set<number>()
  for (const m of after) kept.add(m.id)
  return before.filter((m) => !kept.has(m.id)).map((m) => m.id)
}
