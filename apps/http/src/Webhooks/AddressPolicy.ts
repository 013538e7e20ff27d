import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { BlockList, isIP } from "node:net"

/**
 * Addresses a webhook may not reach unless `WEBHOOKS_ALLOW_PRIVATE=true`: loopback, private (RFC 1918, unique
 * local), link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, "this network", benchmarking,
 * multicast and reserved ranges (server-side request forgery, decision 0310).
 */
const refused = (() => {
  const list = new BlockList()
  for (const [network, prefix] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.0.2.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["198.51.100.0", 24],
    ["203.0.113.0", 24],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4]
  ] as const)
    list.addSubnet(network, prefix, "ipv4")
  for (const [network, prefix] of [
    ["::", 128],
    ["::1", 128],
    ["64:ff9b::", 96],
    ["100::", 64],
    ["2001:db8::", 32],
    ["fc00::", 7],
    ["fe80::", 10],
    ["fec0::", 10],
    ["ff00::", 8]
  ] as const)
    list.addSubnet(network, prefix, "ipv6")
  return list
})()

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i

/** Whether an IP address (v4 or v6, IPv4-mapped included) is one a webhook may not reach by default. */
export const isPrivateAddress = (address: string): boolean => {
  const bare = address.replace(/^\[|\]$/g, "")
  const mapped = MAPPED_V4.exec(bare)
  if (mapped !== null) return isPrivateAddress(mapped[1]!)
  const family = isIP(bare)
  if (family === 4) return refused.check(bare, "ipv4")
  if (family === 6) {
    // ::ffff:a.b.c.d written in hex (::ffff:7f00:1) is IPv4-mapped too.
    const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(bare)
    if (hexMapped !== null) {
      const high = Number.parseInt(hexMapped[1]!, 16)
      const low = Number.parseInt(hexMapped[2]!, 16)
      return isPrivateAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`)
    }
    return refused.check(bare, "ipv6")
  }
  return true
}

/**
 * Why a webhook URL is refused when it is given (undefined: accepted). Only `http:`/`https:`; a host that is an IP
 * literal or a name of this machine (`localhost`, `*.localhost`) must not be private unless `allowPrivate`. Names
 * are not resolved here: the delivery checks the address it actually connects to, every time.
 */
export const urlProblem = (value: string, allowPrivate: boolean): string | undefined => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return "Enter a valid URL (http:// or https://)."
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Only http:// and https:// URLs are allowed."
  if (url.username !== "" || url.password !== "") return "The URL may not contain a user name or password."
  if (allowPrivate) return undefined
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase()
  const local = host === "localhost" || host.endsWith(".localhost") || host === ""
  if (local || (isIP(host) !== 0 && isPrivateAddress(host)))
    return "The URL points to a loopback, private or link-local address; webhooks must reach a public address."
  return undefined
}

/** The error a delivery fails with when a name resolves to an address it may not reach. */
export class RefusedAddress extends Error {
  readonly code = "EREFUSEDADDRESS"
  constructor(readonly address: string) {
    super(`refused to connect to ${address}: a loopback, private or link-local address`)
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | Array<LookupAddress>,
  family?: number
) => void

/**
 * A `lookup` for the sockets of deliveries: resolves as usual, then refuses any private address among the results,
 * so the address checked is the address connected to (a name that resolves to a public address when the webhook
 * is saved and to 127.0.0.1 at delivery, DNS rebinding, is refused then).
 */
export const guardedLookup = (
  hostname: string,
  options: { readonly all?: boolean; readonly family?: number | string | undefined },
  callback: LookupCallback
): void => {
  dnsLookup(hostname, { ...options, all: true } as { all: true }, (error, addresses) => {
    if (error !== null) return callback(error, [])
    const bad = addresses.find((entry) => isPrivateAddress(entry.address))
    if (bad !== undefined) return callback(new RefusedAddress(bad.address) as NodeJS.ErrnoException, [])
    if (options.all === true) return callback(null, addresses)
    const first = addresses[0]
    if (first === undefined) return callback(new Error(`no address for ${hostname}`) as NodeJS.ErrnoException, [])
    return callback(null, first.address, first.family)
  })
}
