import { Config } from "effect"

/**
 * A background worker's options from the environment: each option's `Config` names its variable in full (so it
 * can be searched for) and falls back to the option's value in `defaults` when the variable is unset.
 */
export const optionsWithDefaults = <A, K extends keyof A>(
  defaults: A,
  configs: { readonly [P in K]: Config.Config<A[P]> }
): Config.Config<{ readonly [P in K]: A[P] }> =>
  Config.all(
    Object.fromEntries(
      (Object.keys(configs) as Array<K>).map((key) => [key, Config.withDefault(configs[key], defaults[key])])
    ) as { readonly [P in K]: Config.Config<A[P]> }
  ) as Config.Config<{ readonly [P in K]: A[P] }>
