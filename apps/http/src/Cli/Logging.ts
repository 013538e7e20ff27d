import {
  Cause,
  Config,
  ConfigError,
  Effect,
  Either,
  HashMap,
  Inspectable,
  Layer,
  List,
  Logger,
  LogLevel,
  Option
} from "effect"
import { redactUrl } from "../Http/Redaction.js"
import { asyncLogWriter, droppedLinesJson, droppedLinesMessage } from "./AsyncLogWriter.js"
import { colorsOn } from "./Terminal.js"

/**
 * How the service's logs look (docs/decisions/0410-request-logs.md): `json`, one JSON object per line, for log
 * collectors; `pretty`, for a person at a terminal.
 */
export type LogFormat = "json" | "pretty"

/** Where log lines go: `stdout` for the long-running `serve` and `worker`, `stderr` for one-shot commands. */
export type LogDestination = "stdout" | "stderr"

const stream = (destination: LogDestination) => (destination === "stdout" ? process.stdout : process.stderr)

const messageText = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts.map((part) => (typeof part === "string" ? part : Inspectable.toStringUnknown(part, 0))).join(" ")
}

// Failure texts can quote the request's URL (and so a survey token or a download signature): decision 0805.
const causeText = (cause: Cause.Cause<unknown>) => redactUrl(Cause.pretty(cause, { renderErrorCause: true }))

// A request's fields in the order one reads them; other annotations after them.
const FIELD_ORDER = ["request_id", "method", "path", "status", "duration_ms"]
const rank = (key: string) => {
  const at = FIELD_ORDER.indexOf(key)
  return at < 0 ? FIELD_ORDER.length : at
}
const ordered = (annotations: HashMap.HashMap<string, unknown>) =>
  HashMap.toEntries(annotations).sort(([a], [b]) => rank(a) - rank(b))

/**
 * One log record as one line of JSON: `time`, `level` (lower case), `message`, the annotations as fields
 * (`request_id`, `method`, `path`, `status`, `duration_ms` on a request's line), `spans` in milliseconds, and
 * `cause` with any URL secrets redacted. Nothing in it spans lines (JSON escapes the line breaks of a stack).
 */
export const jsonLine = (options: Logger.Logger.Options<unknown>): string => {
  const line: Record<string, unknown> = {
    time: options.date.toISOString(),
    level: options.logLevel.label.toLowerCase(),
    message: messageText(options.message)
  }
  for (const [key, value] of ordered(options.annotations))
    if (!(key in line)) line[key] = typeof value === "bigint" ? String(value) : value
  if (List.isCons(options.spans)) {
    const now = options.date.getTime()
    line.spans = Object.fromEntries([...options.spans].map((span) => [span.label, now - span.startTime]))
  }
  if (!Cause.isEmpty(options.cause)) line.cause = causeText(options.cause)
  try {
    return JSON.stringify(line)
  } catch {
    // An annotation JSON cannot hold (a cycle): the line still goes out, with that field as text.
    return JSON.stringify(
      Object.fromEntries(Object.entries(line).map(([k, v]) => [k, typeof v === "object" ? String(v) : v]))
    )
  }
}

const LEVEL_COLORS: Record<string, string> = {
  FATAL: "35",
  ERROR: "31",
  WARN: "33",
  INFO: "32",
  DEBUG: "36",
  TRACE: "90"
}

const shown = (value: unknown) => (typeof value === "string" ? value : Inspectable.toStringUnknown(value, 0))

/**
 * One log record for a person: `12:00:00.000 INFO message key=value …` (the level coloured when `colors`), then
 * the cause, redacted and indented, on the lines after it.
 */
export const prettyLine = (options: Logger.Logger.Options<unknown>, colors = false): string => {
  const level = options.logLevel.label
  const color = LEVEL_COLORS[level]
  let line = `${options.date.toISOString().slice(11, 23)} ${colors && color !== undefined ? `\x1b[${color}m${level}\x1b[0m` : level} ${messageText(options.message)}`
  for (const [key, value] of ordered(options.annotations)) line += ` ${key}=${shown(value)}`
  if (List.isCons(options.spans)) {
    const now = options.date.getTime()
    for (const span of options.spans) line += ` ${span.label}=${now - span.startTime}ms`
  }
  if (!Cause.isEmpty(options.cause)) line += `\n  ${causeText(options.cause).replace(/\n/g, "\n  ")}`
  return line
}

/** A logger writing each record to `write` in `format`, ending with a line break (`pretty` coloured if `colors`). */
export const lineLogger = (
  format: LogFormat,
  write: (line: string) => void,
  colors = false
): Logger.Logger<unknown, void> =>
  Logger.make((options) => write(`${format === "json" ? jsonLine(options) : prettyLine(options, colors)}\n`))

/** `LOG_FORMAT` (`json` or `pretty`; default `pretty` when `destination` is a terminal, else `json`). */
export const logFormat = (destination: LogDestination) =>
  Config.literal(
    "json",
    "pretty"
  )("LOG_FORMAT").pipe(
    Config.option,
    Config.map(Option.getOrElse((): LogFormat => (stream(destination).isTTY ? "pretty" : "json")))
  )

/**
 * The names `LOG_LEVEL` takes, in any case: docs/operations.md's (`warning`, `none`) and Effect's own labels for the
 * same levels (`warn`, `off`), which `Config.logLevel` alone would require.
 */
const LOG_LEVELS: ReadonlyMap<string, LogLevel.LogLevel> = new Map([
  ["all", LogLevel.All],
  ["trace", LogLevel.Trace],
  ["debug", LogLevel.Debug],
  ["info", LogLevel.Info],
  ["warning", LogLevel.Warning],
  ["warn", LogLevel.Warning],
  ["error", LogLevel.Error],
  ["fatal", LogLevel.Fatal],
  ["none", LogLevel.None],
  ["off", LogLevel.None]
])

/** `LOG_LEVEL` (`all`, `trace`, `debug`, `info`, `warning`, `error`, `fatal`, `none`; default `info`). */
export const logLevel = Config.string("LOG_LEVEL").pipe(
  Config.mapOrFail((value) => {
    const level = LOG_LEVELS.get(value.trim().toLowerCase())
    return level === undefined
      ? Either.left(
          ConfigError.InvalidData(
            [],
            `Expected one of all, trace, debug, info, warning, error, fatal, none; got ${JSON.stringify(value)}`
          )
        )
      : Either.right(level)
  }),
  Config.withDefault(LogLevel.Info)
)

// The asynchronous writer's warning of lines it dropped, in the log's format (no colours: it is written apart).
const droppedLinesIn = (format: LogFormat) =>
  format === "json"
    ? droppedLinesJson
    : (count: number) =>
        `${new Date().toISOString().slice(11, 23)} WARN ${droppedLinesMessage(count)} dropped_lines=${count}\n`

/**
 * The process's logger: every line to `destination` in the configured format (`LOG_FORMAT`), from the
 * configured level up (`LOG_LEVEL`). A bad value of either stops the program with a configuration error.
 */
export const LoggerLive = (destination: LogDestination): Layer.Layer<never, unknown> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const format = yield* logFormat(destination)
      const level = yield* logLevel
      const out = stream(destination)
      // `serve` and `worker` never wait on their log's reader (decision 0821); a one-shot command's few lines keep
      // their order with what it prints.
      const write =
        destination === "stdout"
          ? (yield* asyncLogWriter(out.fd, { droppedLines: droppedLinesIn(format) })).write
          : (line: string) => void out.write(line)
      return Layer.merge(
        Logger.replace(Logger.defaultLogger, lineLogger(format, write, colorsOn(out))),
        Logger.minimumLogLevel(level)
      )
    })
  )
