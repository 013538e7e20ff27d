/**
 * Why a mail must not be taken as a customer's words, or `undefined`: it was sent by a machine (RFC 3834
 * `Auto-Submitted` other than `no`; `Precedence: bulk`, `junk` or `list`; the `X-Autoreply` / `X-Autorespond`
 * headers of older responders). Answering such mail is how two auto-responders ping-pong forever; a delivery
 * status notification is read before this check, as a bounce.
 */
export const machineSent = (header: (name: string) => string): string | undefined => {
  const autoSubmitted = header("auto-submitted").trim().toLowerCase()
  if (autoSubmitted !== "" && !autoSubmitted.startsWith("no")) return `Auto-Submitted: ${autoSubmitted}`
  const precedence = header("precedence").trim().toLowerCase()
  if (["bulk", "junk", "list"].includes(precedence)) return `Precedence: ${precedence}`
  if (header("x-autoreply").trim() !== "") return "X-Autoreply"
  if (header("x-autorespond").trim() !== "") return "X-Autorespond"
  return undefined
}
