import { Schema } from "effect"

/** The wire shape of an attachment: what uploads return and tickets and messages embed. */
export class AttachmentView extends Schema.Class<AttachmentView>("Attachment")({
  id: Schema.UUID,
  name: Schema.String,
  size: Schema.Int,
  content_type: Schema.String,
  download_url: Schema.String.annotations({
    description: "A signed link to the file, valid for a limited time (`ATTACHMENT_URL_TTL`, default 1 hour)."
  })
}) {}

/** An attachment as the domain's commands carry it once claimed. */
export interface ClaimedAttachment {
  readonly id: string
  readonly name: string
  readonly size: number
  readonly contentType: string
}

/** Why one of the ids given to claim could not be claimed. */
export type ClaimProblem = "unknown" | "other_caller" | "expired" | "claimed" | "other_ticket"

const PROBLEM_MESSAGES: Record<ClaimProblem, string> = {
  unknown: "does not exist.",
  other_caller: "was uploaded by someone else.",
  expired: "has expired; upload it again.",
  claimed: "is already attached elsewhere.",
  other_ticket: "was uploaded to another ticket."
}

/** One message per refused id, for the `attachment_ids` field error. */
export const claimProblemMessages = (
  problems: ReadonlyArray<{ readonly id: string; readonly problem: string }>
): ReadonlyArray<string> =>
  problems.map(({ id, problem }) => `Attachment ${id} ${PROBLEM_MESSAGES[problem as ClaimProblem]}`)

/** Some of the ids could not be claimed; nothing was claimed. */
export class AttachmentClaimRefused extends Schema.TaggedError<AttachmentClaimRefused>()("AttachmentClaimRefused", {
  problems: Schema.Array(Schema.Struct({ id: Schema.String, problem: Schema.String }))
}) {
  /** One message per refused id, for the `attachment_ids` field error. */
  get messages(): ReadonlyArray<string> {
    return claimProblemMessages(this.problems)
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what a file name must not keep
const FORBIDDEN_IN_NAMES = /[\u0000-\u001f\u007f"\\/:*?<>|]/g

/**
 * The original file name, kept for display and downloads but made harmless: no directories, no control or
 * path characters, no leading dots, at most 255 characters; `file` when nothing is left.
 */
export const safeFileName = (original: string): string => {
  const base = original.split(/[\\/]/).pop() ?? ""
  const cleaned = base
    .replace(FORBIDDEN_IN_NAMES, "_")
    .replace(/^[.\s]+/, "")
    .trim()
  const limited = [...cleaned].slice(0, 255).join("")
  return limited === "" ? "file" : limited
}
