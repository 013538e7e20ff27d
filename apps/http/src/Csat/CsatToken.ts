import { createHash, randomBytes } from "node:crypto"

/**
 * Survey tokens: `hd_csat_` and 32 random bytes in base64url, like API tokens (docs/decisions/0401-tokens-and-roles.md).
 * The link in the e-mail is the credential; only its SHA-256 is stored.
 */
const PREFIX = "hd_csat_"

/** A survey token anywhere in a text, as a regular expression source (JavaScript and PostgreSQL alike). */
export const SURVEY_TOKEN_PATTERN = "hd_csat_[A-Za-z0-9_-]{43}"

const SHAPE = new RegExp(`^${SURVEY_TOKEN_PATTERN}$`)

/** A new random survey token. */
export const generateSurveyToken = (): string => `${PREFIX}${randomBytes(32).toString("base64url")}`

/** Whether `value` has the shape of a survey token (checked before any database work). */
export const isSurveyToken = (value: string): boolean => SHAPE.test(value)

/** The stored hash of a survey token. */
export const hashSurveyToken = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest()
