/**
 * The benchmarks of `@helpdesk/http`: `npm run bench -w @helpdesk/http [-- name…]` runs every benchmark, or only
 * those whose names are given. Each prints its figures beside a baseline measured in the same run.
 *
 * To add one, export a {@link Benchmark} from a file in this folder and list it in `benchmarks` below. `-- --list`
 * prints their names.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import type { Benchmark } from "./Benchmark.js"
import { blobStoreBenchmark } from "./BlobStoreBenchmark.js"
import { checkoutBenchmark } from "./CheckoutBenchmark.js"
import { eventFeedBenchmark } from "./EventFeedBenchmark.js"
import { eventStoreBenchmark } from "./EventStoreBenchmark.js"
import { hangupBenchmark } from "./HangupBenchmark.js"
import { mailBenchmark } from "./MailBenchmark.js"
import { readTailsBenchmark } from "./ReadTailsBenchmark.js"
import { slaBreachBenchmark } from "./SlaBreachBenchmark.js"
import { snoozeTimerBenchmark } from "./SnoozeTimerBenchmark.js"
import { ticketPipelineBenchmark } from "./TicketPipelineBenchmark.js"
import { ticketsHttpBenchmark } from "./TicketsHttpBenchmark.js"
import { webhookBenchmark } from "./WebhookBenchmark.js"

const benchmarks: ReadonlyArray<Benchmark> = [
  eventStoreBenchmark,
  ticketsHttpBenchmark,
  hangupBenchmark,
  checkoutBenchmark,
  readTailsBenchmark,
  ticketPipelineBenchmark,
  snoozeTimerBenchmark,
  slaBreachBenchmark,
  mailBenchmark,
  eventFeedBenchmark,
  blobStoreBenchmark,
  webhookBenchmark
]

// `--list`: the names, once every benchmark module has loaded (CI runs it, so a benchmark that no longer loads fails).
if (process.argv.includes("--list")) {
  console.log(benchmarks.map((b) => b.name).join("\n"))
  process.exit(0)
}

const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith("-"))
const unknown = wanted.filter((name) => !benchmarks.some((b) => b.name === name))
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; known: ${benchmarks.map((b) => b.name).join(", ")}`)
  process.exit(2)
}
const selected = wanted.length === 0 ? benchmarks : benchmarks.filter((b) => wanted.includes(b.name))

Effect.forEach(
  selected,
  (benchmark) =>
    Effect.gen(function* () {
      yield* Console.log(`\n## ${benchmark.name}: ${benchmark.description}\n`)
      yield* benchmark.run
    }),
  { discard: true }
).pipe(
  // As the service runs its requests and workers: no tracer without an exporter (decision 0780). Enabled, every SQL
  // statement would build a span nobody receives (about a sixth of an append's CPU).
  Effect.withTracerEnabled(false),
  NodeRuntime.runMain
)
