/**
 * A map of at most `capacity` entries that forgets the least recently used one to make room (a `Map` keeps
 * insertion order, so re-inserting on every hit keeps the oldest use first). A capacity of 0 keeps nothing.
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, V>()

  constructor(readonly capacity: number) {}

  /** The value, marked as just used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key)
    if (value !== undefined) {
      this.#entries.delete(key)
      this.#entries.set(key, value)
    }
    return value
  }

  /** Stores the value, forgetting the least recently used entries beyond the capacity. */
  set(key: K, value: V): void {
    if (this.capacity <= 0) return
    this.#entries.delete(key)
    this.#entries.set(key, value)
    while (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as K)
  }

  delete(key: K): void {
    this.#entries.delete(key)
  }

  /** Forgets every entry whose value matches. */
  deleteWhere(predicate: (value: V) => boolean): void {
    for (const [key, value] of this.#entries) if (predicate(value)) this.#entries.delete(key)
  }

  clear(): void {
    this.#entries.clear()
  }

  get size(): number {
    return this.#entries.size
  }
}
