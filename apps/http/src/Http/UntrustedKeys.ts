/**
 * Keys that come from the wire (form field names, JSON object keys, query parameter names, error paths built
 * from them) are data, never property names of a shared prototype: `record[key] = value` on a `{}` with the key
 * `__proto__` replaces the record's prototype, and reading `record["constructor"]` finds `Object`. So objects
 * keyed by untrusted keys have no prototype, and writes that may meet such a key define an own property.
 * (`docs/decisions/0800-untrusted-keys.md`)
 */

/** An empty record for untrusted keys: no prototype, so `__proto__` and `constructor` are ordinary keys. */
export const untrustedRecord = <A>(): Record<string, A> => Object.create(null) as Record<string, A>

/** The own value at `key`, never an inherited one (`Object.prototype`, `Object` for `constructor`). */
export const ownValue = <A>(record: Readonly<Record<string, A>>, key: string): A | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined

/**
 * Sets an own property, whatever the key and the object's prototype: plain assignment with the key `__proto__`
 * would replace the object's prototype instead (and the key would vanish from its JSON).
 */
export const setOwn = (record: object, key: string, value: unknown): void => {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
}
