import * as net from "node:net"
import pg from "pg"

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void
) => void

type QueryCallback = (err: Error | undefined, result: pg.QueryResult | undefined) => void

// The statement `@effect/sql-pg` sends on another connection of the pool to cancel an interrupted one: the process id
// it read from the connection, which this pool answers with a checkout's number (negative, never a session's).
const CANCEL = /^SELECT pg_cancel_backend\((-?\d+)\)$/

/**
 * How long a cancel request may take to reach the server before its session's outcome counts as unknown: with
 * {@link CANCEL_GRACE_MS}, within the 5 s `@effect/sql-pg` waits for a cancel before it releases the connection anyway.
 */
export const CANCEL_REQUEST_TIMEOUT_MS = 4500

/**
 * How long an interrupted statement may run on before it is cancelled: most end within milliseconds, and a statement
 * that ends by itself needs no signal (each cancel request has the server start a process).
 */
export const CANCEL_GRACE_MS = 100

// A cancel request (PostgreSQL's protocol, "CancelRequest"): its length, its code, the session's process id and key.
const CANCEL_REQUEST_LENGTH = 16
const CANCEL_REQUEST_CODE = 80877102

/** Why a connection was closed rather than handed out: a cancel sent to its session may still arrive. */
export class CancelMayBePending extends Error {
  constructor(readonly pid: number) {
    super(`a cancel was sent to session ${pid}`)
  }
}

/** What `pg` knows of a connection's session: its backend's process id and key, and where the server listens. */
export interface Session {
  readonly processID: number | null
  readonly secretKey: number | null
  readonly host: string
  readonly port: number
}

/** `pg`'s own record of what a connection runs (fields of its `Client` that its types do not declare). */
interface Running {
  readonly activeQuery: unknown
  readonly queryQueue: ReadonlyArray<unknown>
}

/**
 * Whether `client` has run everything sent to it within `ms`: `pg`'s client says `drain` when it has nothing left to
 * run.
 */
const idleWithin = (client: pg.PoolClient, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    const running = client as unknown as Running
    if (running.activeQuery == null && running.queryQueue.length === 0) return resolve(true)
    const drained = () => {
      clearTimeout(timer)
      resolve(true)
    }
    const timer = setTimeout(() => {
      client.off("drain", drained)
      resolve(false)
    }, ms)
    client.once("drain", drained)
  })

/**
 * The session of a `pg` connection (`pg` sets these fields; its types do not declare them all). On a checkout that
 * `CancelSafePool` handed out with cancel requests, `processID` is the checkout's number (see `Checkout`).
 */
export const sessionOf = (client: pg.ClientBase): Session => client as unknown as Session

/**
 * Sends PostgreSQL's cancel request for `session` on a connection of its own (no session, no pool) and answers
 * whether the server took it: it signals the session's backend before it closes that connection. False when the
 * connection fails or stays open past `timeoutMs`.
 */
export const sendCancelRequest = (session: Session, timeoutMs = CANCEL_REQUEST_TIMEOUT_MS): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = session.host.startsWith("/")
      ? net.connect(`${session.host}/.s.PGSQL.${session.port}`)
      : net.connect(session.port, session.host)
    let settled = false
    const settle = (taken: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(taken)
    }
    const timer = setTimeout(() => settle(false), timeoutMs)
    let written = false
    socket.once("connect", () => {
      const request = Buffer.alloc(CANCEL_REQUEST_LENGTH)
      request.writeInt32BE(CANCEL_REQUEST_LENGTH, 0)
      request.writeInt32BE(CANCEL_REQUEST_CODE, 4)
      request.writeInt32BE(session.processID!, 8)
      request.writeInt32BE(session.secretKey!, 12)
      socket.write(request, () => {
        written = true
      })
    })
    // The server answers nothing: it closes the connection once it has signalled the backend.
    socket.once("close", () => settle(written))
    socket.once("error", () => settle(false))
  })

/** The result `pg_cancel_backend` would have answered; `@effect/sql-pg` only waits for it. */
const cancelResult = (sent: boolean): pg.QueryResult =>
  ({
    command: "SELECT",
    rowCount: 1,
    oid: 0,
    fields: [],
    rows: [{ pg_cancel_backend: sent }]
  }) as unknown as pg.QueryResult

/** A connection the pool keeps out of use for a while (see {@link heldOut}). */
interface Hold {
  /** `done` for it; the first call wins. */
  readonly release: (reason?: unknown) => void
  /** Ends the hold to hand the connection on: false when it was released meanwhile (its error). */
  readonly keep: () => boolean
}

/**
 * Holds a connection out of use: an error of the connection meanwhile (its backend gone) releases it with that
 * error, which closes it, where unheard it would crash the process.
 */
const heldOut = (client: pg.PoolClient, done: (release?: unknown) => void): Hold => {
  let released = false
  const release = (reason?: unknown) => {
    if (released) return
    released = true
    client.off("error", release)
    done(reason)
  }
  client.on("error", release)
  return {
    release,
    keep: () => {
      if (released) return false
      client.off("error", release)
      return true
    }
  }
}

/**
 * A connection as one checkout hands it out (a `Proxy`'s handler): the connection itself in everything but its
 * `processID`, which is the checkout's number, and its `release`, which ends the checkout. `@effect/sql-pg` reads the
 * process id to cancel with, so its cancel names the checkout, and a checkout that has ended has no statement left to
 * cancel. Methods are bound to the connection (once per connection, in `bound`), so `pg`'s own work runs on it and
 * not through the proxy.
 */
class Checkout implements ProxyHandler<pg.PoolClient> {
  constructor(
    private readonly checkout: number,
    private readonly release: (reason?: unknown) => void,
    private readonly bound: Map<unknown, unknown>
  ) {}

  get(target: pg.PoolClient, key: string | symbol): unknown {
    if (key === "processID") return this.checkout
    if (key === "release") return this.release
    const value: unknown = Reflect.get(target, key)
    if (typeof value !== "function") return value
    const known = this.bound.get(value)
    if (known !== undefined) return known
    const method = value.bind(target)
    this.bound.set(value, method)
    return method
  }
}

/** `CancelSafePool`'s options beside `pg.Pool`'s. */
export interface CancelSafePoolConfig extends pg.PoolConfig {
  /**
   * Whether the server stops a session's statement on a cancel request: PostgreSQL does; the embedded database
   * ignores them (its statements run to their end), so none is sent there. Default true.
   */
  readonly cancelRequests?: boolean
}

/**
 * A `pg` pool that cancels an interrupted statement without a connection of its own and never hands out a
 * connection a cancel may still reach.
 *
 * `@effect/sql-pg` cancels an interrupted statement (a client that hung up, a timeout) by running
 * `pg_cancel_backend(pid)` on another connection of the pool, while the statement's own callback still releases its
 * connection when it ends. The cancel is a signal to the session's backend, not to a statement: when every
 * connection is busy it waits for one, the interrupted statement ends meanwhile, and the signal then cancels the
 * next caller's statement on that session, which fails with "canceling statement due to user request"
 * (Effect-TS/effect#8068; the fix is in Effect 4 only).
 *
 * This pool lets a statement that ends within {@link CANCEL_GRACE_MS} end unsignalled, and cancels a longer one
 * with PostgreSQL's cancel request, on a short connection outside the pool, holding the session's connection back
 * until the server has signalled it (docs/decisions/0822-cancels-keep-their-connection.md). A signal a backend
 * receives while it waits for its next statement is dropped, so the connection is then safe to hand out, and is
 * kept: the next caller needs no new connection, and the caller sent away from it keeps its turn (`sendAway`). Only
 * when the server's taking the request is unknown (no answer within {@link CANCEL_REQUEST_TIMEOUT_MS}, a connection
 * error) is the connection closed instead, after what it still runs has ended. Each checkout's cancel names that
 * checkout (`Checkout`): `@effect/sql-pg` may handle an interruption after the statement's callback has released the
 * connection, and a checkout released has nothing to cancel, where its session may already run the next caller's
 * statement.
 */
export const CancelSafePool = class extends pg.Pool {
  private readonly cancelRequests: boolean
  // The pool's connections by their session's process id, for the key a cancel request needs.
  private readonly sessions = new Map<number, pg.PoolClient>()
  // Sessions a cancel request is on its way to, settled with whether the server took it.
  private readonly cancelling = new Map<number, Promise<boolean>>()
  // Sessions whose cancel request's outcome is unknown: closed the next time they would be handed out.
  private readonly unsafe = new Set<number>()
  // The connections handed out and not yet released, by their checkout's number (see `Checkout`).
  private readonly checkouts = new Map<number, pg.PoolClient>()
  private lastCheckout = 0
  // Callers handed a connection whose cancel was still on its way, oldest first (see `sendAway`), and how many
  // connections are on their way to them (held back, or asked of the pool).
  private readonly sentAway: Array<ConnectCallback> = []
  private coming = 0
  // Each connection's methods bound to it, for the proxies of its checkouts.
  private readonly boundMethods = new WeakMap<pg.PoolClient, Map<unknown, unknown>>()

  constructor(config?: CancelSafePoolConfig) {
    const { cancelRequests, ...poolConfig } = config ?? {}
    super(poolConfig)
    this.cancelRequests = cancelRequests ?? true
    this.on("connect", (client) => {
      const pid = sessionOf(client).processID
      if (pid !== null) this.sessions.set(pid, client)
    })
    this.on("remove", (client) => {
      const pid = sessionOf(client).processID
      if (pid === null || this.sessions.get(pid) !== client) return
      this.sessions.delete(pid)
      this.unsafe.delete(pid)
    })
  }

  // @ts-expect-error one signature for `pg`'s overloads; the arguments are passed on unchanged
  override query(...args: Array<unknown>): unknown {
    const match = typeof args[0] === "string" ? CANCEL.exec(args[0]) : null
    if (match === null) return (super.query as (...args: Array<unknown>) => unknown)(...args)
    const last = args[args.length - 1]
    const callback = typeof last === "function" ? (last as QueryCallback) : undefined
    const id = Number(match[1])
    if (id >= 0) {
      this.cancel(id, callback)
      return undefined
    }
    // A checkout released has no statement left: it ended before its interruption was handled, and its session may
    // already run the next caller's statement, which a signal would cancel.
    const client = this.checkouts.get(id)
    if (client === undefined) callback?.(undefined, cancelResult(false))
    else this.cancel(sessionOf(client).processID!, callback)
    return undefined
  }

  /**
   * Cancels what session `pid` runs unless it ends within {@link CANCEL_GRACE_MS}, then calls `callback` as
   * `pg_cancel_backend`'s statement would answer.
   */
  private cancel(pid: number, callback: QueryCallback | undefined): void {
    const client = this.sessions.get(pid)
    if (!this.cancelRequests || client === undefined || sessionOf(client).secretKey === null) {
      callback?.(undefined, cancelResult(false))
      return
    }
    const sent = idleWithin(client, CANCEL_GRACE_MS)
      .then((idle) => idle || sendCancelRequest(sessionOf(client)))
      .catch(() => false)
    this.cancelling.set(pid, sent)
    void sent.then((taken) => {
      if (this.cancelling.get(pid) === sent) this.cancelling.delete(pid)
      if (!taken) this.unsafe.add(pid)
      callback?.(undefined, cancelResult(taken))
    })
  }

  override connect(): Promise<pg.PoolClient>
  override connect(callback: ConnectCallback): void
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    if (callback === undefined)
      return new Promise((resolve, reject) =>
        this.connect((err, client) => (!err && client !== undefined ? resolve(client) : reject(err)))
      )
    super.connect((err, client, done) => {
      const pid = err || client === undefined ? null : sessionOf(client).processID
      if (pid === null) return callback(err, client, done)
      const cancelling = this.cancelling.get(pid)
      if (cancelling !== undefined) {
        // Released by the interrupted statement's own end (an interruption releases only after its cancel).
        this.sendAway(pid, client!, done, cancelling, callback)
        return
      }
      if (this.unsafe.has(pid)) {
        // Not sent away: this caller waits behind what the connection still runs (see `close`).
        this.close(pid, client!, heldOut(client!, done).release, () => this.connect(callback))
        return
      }
      this.handOut(client!, done, callback)
    })
    return undefined
  }

  /**
   * Holds `client` back until the cancel on its way to its session has settled, then hands it to the oldest caller
   * sent away so. That caller was first in the pool's queue, and asking the pool again alone would put it at the back;
   * most cancels settle within this turn of the event loop, and when this one has not by the next, the caller also
   * asks the pool for another connection and takes whichever comes first.
   */
  private sendAway(
    pid: number,
    client: pg.PoolClient,
    done: (release?: unknown) => void,
    cancelling: Promise<boolean>,
    callback: ConnectCallback
  ): void {
    const hold = heldOut(client, done)
    this.sentAway.push(callback)
    this.coming++
    let settled = false
    void cancelling.then(() => {
      settled = true
      this.coming--
      if (this.unsafe.has(pid)) this.close(pid, client, hold.release, () => {})
      else if (hold.keep()) return this.toSentAway(client, done)
      this.askForSentAway()
    })
    setImmediate(() => {
      if (!settled) this.ask()
    })
  }

  /** Asks the pool for another connection when callers sent away outnumber the connections on their way to them. */
  private askForSentAway(): void {
    if (this.sentAway.length > this.coming) this.ask()
  }

  /**
   * Asks the pool for a connection for the oldest caller sent away (none left: back to the pool). A failure goes to
   * that caller only when no other connection is on its way to it.
   */
  private ask(): void {
    this.coming++
    this.connect((err, other, otherDone) => {
      this.coming--
      if (!err && other !== undefined) {
        const next = this.sentAway.shift()
        if (next !== undefined) next(undefined, other, otherDone)
        else otherDone()
      } else if (this.sentAway.length > this.coming) this.sentAway.shift()!(err, undefined, otherDone)
    })
  }

  /** Hands `client` to the oldest caller sent away from a held-back connection, or back to the pool when none waits. */
  private toSentAway(client: pg.PoolClient, done: (release?: unknown) => void): void {
    const next = this.sentAway.shift()
    if (next === undefined) done()
    else this.handOut(client, done, next)
  }

  /** Hands `client` out as a checkout of its own, whose cancel names it; without cancel requests, as it is. */
  private handOut(client: pg.PoolClient, done: (release?: unknown) => void, callback: ConnectCallback): void {
    if (!this.cancelRequests) {
      callback(undefined, client, done)
      return
    }
    const checkout = --this.lastCheckout
    this.checkouts.set(checkout, client)
    const release = (reason?: unknown) => {
      this.checkouts.delete(checkout)
      done(reason)
    }
    let bound = this.boundMethods.get(client)
    if (bound === undefined) {
      bound = new Map()
      this.boundMethods.set(client, bound)
    }
    callback(undefined, new Proxy(client, new Checkout(checkout, release, bound)), release)
  }

  /** Closes a connection a cancel may still reach once what it still runs has ended, then calls `then`. */
  private close(pid: number, client: pg.PoolClient, done: (release?: unknown) => void, then: () => void): void {
    this.unsafe.delete(pid)
    // `@effect/sql-pg` releases an interrupted statement's connection once its cancel is answered, maybe before the
    // statement has ended: this query waits behind it, so the caller's next statement, on another connection, cannot
    // overtake it (a clean-up `DELETE` committing before the interrupted `INSERT` it cleans up after).
    client.query("SELECT 1", () => {
      // A truthy argument closes the connection instead of returning it to the pool.
      done(new CancelMayBePending(pid))
      then()
    })
  }
  // What the service takes as its pool: the signatures are `pg.Pool`'s.
} as unknown as new (
  config?: CancelSafePoolConfig
) => pg.Pool
