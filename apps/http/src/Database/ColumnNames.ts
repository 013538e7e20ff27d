import { String as Str } from "effect"

/** How many distinct names each conversion remembers; a name past that is converted on every use, as before. */
export const MAX_REMEMBERED_NAMES = 2_000

/**
 * `convert` remembering its answers. The SQL client converts every column name of every row it returns (and every
 * field name it writes); a service has a few hundred of them, and converting one builds a new string a character
 * at a time: about 7 µs of CPU per read of one organization row, and the garbage collector's time for the strings.
 */
export const rememberedNames = (convert: (name: string) => string): ((name: string) => string) => {
  const known = new Map<string, string>()
  return (name) => {
    let converted = known.get(name)
    if (converted === undefined) {
      converted = convert(name)
      if (known.size < MAX_REMEMBERED_NAMES) known.set(name, converted)
    }
    return converted
  }
}

/** A column's name as the code's field name (`created_at` → `createdAt`). */
export const fieldOfColumn = rememberedNames(Str.snakeToCamel)

/** A field's name as its column's name (`createdAt` → `created_at`). */
export const columnOfField = rememberedNames(Str.camelToSnake)
