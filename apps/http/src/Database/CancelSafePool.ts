import pg from "pg"

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void
) => void

// The statement `@effect/sql-pg` sends on another connection of the pool to cancel an interrupted one.
const CANCEL = /^SELECT pg_cancel_backend\((\d+)\)$/

/** Why a connection was closed rather than handed out: a cancel sent to its session may still arrive. */
export class CancelMayBePending extends Error {
  constructor(readonly pid: number) {
    super(`a cancel was sent to session ${pid}`)
  }
}

/**
 * A `pg` pool that never hands out a connection whose session a cancel was sent to.
 *
 * `@effect/sql-pg` cancels an interrupted statement (a client that hung up, a timeout) by running
 * `pg_cancel_backend(pid)` on another connection, while the statement's own callback still releases its
 * connection when it ends. The cancel is a signal to the session's backend, not to a statement: when every
 * connection is busy it waits for one, the interrupted statement ends meanwhile, and the signal then cancels the
 * next caller's statement on that session, which fails with "canceling statement due to user request"
 * (Effect-TS/effect#8068; the fix is in Effect 4 only). This pool notes the session of every cancel sent through
 * it, and the next time that connection would be handed out, lets what it still runs end, closes it and hands out
 * another.
 */
export const CancelSafePool = class extends pg.Pool {
  private readonly cancelled = new Set<number>()

  constructor(config?: pg.PoolConfig) {
    super(config)
    this.on("remove", (client) => {
      const pid = processIdOf(client)
      if (pid !== undefined) this.cancelled.delete(pid)
    })
  }

  // @ts-expect-error one signature for `pg`'s overloads; the arguments are passed on unchanged
  override query(...args: Array<unknown>): unknown {
    const match = typeof args[0] === "string" ? CANCEL.exec(args[0]) : null
    if (match !== null) this.cancelled.add(Number(match[1]))
    return (super.query as (...args: Array<unknown>) => unknown)(...args)
  }

  override connect(): Promise<pg.PoolClient>
  override connect(callback: ConnectCallback): void
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    if (callback === undefined)
      return new Promise((resolve, reject) =>
        this.connect((err, client) => (!err && client !== undefined ? resolve(client) : reject(err)))
      )
    super.connect((err, client, done) => {
      const pid = client === undefined ? undefined : processIdOf(client)
      if (!err && client !== undefined && pid !== undefined && this.cancelled.has(pid)) {
        this.cancelled.delete(pid)
        // `@effect/sql-pg` releases an interrupted statement's connection before that statement has ended: what it
        // still runs ends first (this query waits behind it), so the caller's next statement cannot overtake it,
        // e.g. a clean-up `DELETE` committing before the interrupted `INSERT` it cleans up after.
        client.query("SELECT 1", () => {
          // A truthy argument closes the connection instead of returning it to the pool.
          done(new CancelMayBePending(pid))
          this.connect(callback)
        })
        return
      }
      callback(err, client, done)
    })
    return undefined
  }
  // What the service takes as its pool: the signatures are `pg.Pool`'s.
} as unknown as typeof pg.Pool

const processIdOf = (client: pg.PoolClient): number | undefined => (client as { processID?: number }).processID
