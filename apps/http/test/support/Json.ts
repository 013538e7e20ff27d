import { DateTime } from "effect"

/**
 * A value as JSON: instants become ISO-8601 strings, everything else keeps its shape. For comparing folded
 * states (plain data apart from `DateTime.Utc`) in tests.
 */
export const toJsonValue = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") return value
  if (DateTime.isDateTime(value)) return DateTime.formatIso(value)
  if (Array.isArray(value)) return value.map(toJsonValue)
  const json: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) json[key] = toJsonValue(field)
  return json
}
