import { execFileSync } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { heapFlags, PRETENURING } from "../src/HeapTuning.js"

const otherFlag = FastCheck.constantFrom(
  "--max-semi-space-size=64",
  "--enable-source-maps",
  "--import",
  "tsx",
  "--max-old-space-size=4096",
  "--inspect",
  "-e",
  "console.log('--allocation-site-pretenuring')",
  "--allocation-site-pretenuring-typo"
)

describe("heap tuning at start", () => {
  it.prop(
    "given a command line that does not name pretenuring, when the process starts, then pretenuring is turned off",
    [FastCheck.array(otherFlag, { maxLength: 5 })],
    ([execArgv]) => {
      assert.deepStrictEqual(heapFlags(execArgv), [`--no-${PRETENURING}`])
    }
  )

  it.prop(
    "given a command line that names pretenuring either way, in either spelling, then it is left as the operator set it",
    [
      FastCheck.array(otherFlag, { maxLength: 5 }),
      FastCheck.nat(5),
      FastCheck.constantFrom(
        "--allocation-site-pretenuring",
        "--no-allocation-site-pretenuring",
        "--allocation_site_pretenuring",
        "--no-allocation_site_pretenuring",
        "--allocation-site-pretenuring=false"
      )
    ],
    ([others, at, named]) => {
      const execArgv = [...others.slice(0, at), named, ...others.slice(at)]
      assert.deepStrictEqual(heapFlags(execArgv), [])
    }
  )

  it("sets a flag this Node's V8 knows (node refuses an unknown V8 option on its command line)", () => {
    for (const flag of heapFlags([])) {
      assert.strictEqual(execFileSync(process.execPath, [flag, "-e", "process.stdout.write('ok')"]).toString(), "ok")
    }
    assert.throws(() =>
      execFileSync(process.execPath, ["--no-allocation-site-pretenuring-typo", "-e", ""], { stdio: "pipe" })
    )
  })
})
