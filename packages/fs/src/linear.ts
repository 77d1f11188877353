import type { RE2JS } from 're2js'

/*
 * RE2 (re2js) matches in linear time, but loading it costs 30–60 ms, which a cold start of the CLI
 * must not pay: it is imported on the first walk or search, never at start. Everything that
 * compiles a pattern on it runs inside a walk or search, which awaits `loadLinearEngine` first.
 */

// The module's two variables are a lazy-load cache of an immutable module, not process state: they
// go from unset to set once and never back, hold nothing per provider or per call, and a fresh
// test sees the same engine a previous one loaded (issue 23 keeps them, named here).
let engine: typeof RE2JS | undefined
let loading: Promise<void> | undefined

/** Loads the engine once; every walk and search awaits it before compiling a pattern. */
export function loadLinearEngine(): Promise<void> {
  loading ??= import('re2js').then((module) => {
    engine = module.RE2JS
  })
  return loading
}

/** The loaded engine. A provider that builds a `SearchCollector` itself awaits `loadLinearEngine()` first. */
export function linearEngine(): typeof RE2JS {
  if (engine === undefined) throw new Error('the linear-time pattern engine is not loaded yet: await loadLinearEngine() first')
  return engine
}
