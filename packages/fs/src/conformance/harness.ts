import { afterEach, beforeEach, expect, it, type TestContext } from 'vitest'
import { FS_ERROR_CODES, FsError, type FsErrorCode } from '../errors'
import type { FsOptionalMethod, FsTarget } from '../types'
import { CAPABILITY_HELPERS, type ConformanceCapabilities, type ConformanceFixture, METHOD_CAPABILITIES } from './fixture'

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)
export const fromUtf8 = (bytes: Uint8Array | undefined): string | undefined =>
  bytes === undefined ? undefined : new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)

/** The failure of `promise`, asserted to be an `FsError` with `code`. */
export async function expectFsError(promise: Promise<unknown>, code: FsErrorCode): Promise<FsError> {
  const outcome = await promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  )
  if (outcome.ok) expect.fail(`expected ${code}, but the operation succeeded with ${JSON.stringify(outcome.value)?.slice(0, 200)}`)
  const error = outcome.error
  expect(FsError.is(error), `expected an FsError, got ${String(error)}`).toBe(true)
  expect((error as FsError).code).toBe(code)
  expect(FS_ERROR_CODES).toContain((error as FsError).code)
  return error as FsError
}

/** Fails when `promise` takes longer than `ms`: the clauses about never blocking on special files. */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms (blocked?)`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

export function abortedSignal(): AbortSignal {
  const controller = new AbortController()
  controller.abort(new Error('cancelled by the test'))
  return controller.signal
}

/** What the harness needs of `ConformanceOptions`, whatever its capabilities' literal type. */
export interface SuiteOptions {
  capabilities: ConformanceCapabilities
  setup(): Promise<ConformanceFixture>
}

/** One fresh fixture per test, with shorthands the clauses share. */
export class Harness {
  fixture!: ConformanceFixture

  constructor(readonly options: SuiteOptions) {}

  /** A harness whose fixture is made before and disposed after every test of the enclosing `describe`. */
  static perTest(options: SuiteOptions): Harness {
    const h = new Harness(options)
    beforeEach(async () => {
      h.fixture = checkHelpers(options.capabilities, await options.setup(), true)
    })
    afterEach(async () => {
      await h.fixture?.dispose()
    })
    return h
  }

  /** A harness on one fixture made by the caller, for running a clause by hand (the suite's own tests). */
  static of(capabilities: ConformanceCapabilities, fixture: ConformanceFixture): Harness {
    const h = new Harness({ capabilities, setup: async () => fixture })
    h.fixture = checkHelpers(capabilities, fixture)
    return h
  }

  get fs() {
    return this.fixture.fs
  }

  /** Whether the provider has the optional `method`: the suite's declaration, else the provider's own. */
  has(method: FsOptionalMethod): boolean {
    return this.options.capabilities[method] ?? this.fs.capabilities[method]
  }

  get external() {
    return this.fixture.external
  }

  target(name: string): Promise<FsTarget> {
    return this.fixture.fs.resolve(this.fixture.path(name))
  }

  async disk(name: string): Promise<string | undefined> {
    return fromUtf8(await this.fixture.external.read(name))
  }

  /** Writes each file from outside the provider, in order. */
  async files(files: Record<string, string | Uint8Array>): Promise<void> {
    for (const [name, data] of Object.entries(files)) await this.fixture.external.write(name, data)
  }

  async version(name: string) {
    const info = await this.fs.stat(await this.target(name))
    if (!info) expect.fail(`${name} should exist`)
    return info.version
  }
}

/** A group of clauses: the title its tests run under, and the function that registers them on a harness. */
export interface ClauseGroup {
  readonly title: string
  readonly clauses: (h: Harness) => void
}

/** What registers one clause: `it`, or `it` narrowed to the backends that can run the clause. */
export type Clause = (name: string, fn: (ctx: TestContext) => Promise<void>, timeout?: number) => void

/** `it`, skipped (visibly, with the reason in its name) when the backend lacks `capability`. */
export function needs(h: Harness, capability: keyof ConformanceCapabilities): Clause {
  const named = `[needs ${capability}]`
  if (isMethod(capability) && h.options.capabilities[capability] === undefined) {
    // A method left out of the suite's capabilities follows the provider's declaration, known once it is set up.
    return (name, fn, timeout) => it(`${name} ${named}`, async (ctx) => (h.has(capability) ? fn(ctx) : ctx.skip()), timeout)
  }
  // Any other optional capability left out is one the backend lacks.
  const missing = !h.options.capabilities[capability]
  return (name, fn, timeout) => it.skipIf(missing)(`${name} ${named}`, fn, timeout)
}

/**
 * `test`, skipped (with the reason in its name) when the fixture has no `beforeNextPublish`: only
 * a fixture can hold a call between its probe and its publication, and it is optional.
 */
export function needsPublishHook(h: Harness, test: Clause = it): Clause {
  return (name, fn, timeout) => test(`${name} [needs beforeNextPublish]`, async (ctx) => (h.fixture.beforeNextPublish ? fn(ctx) : ctx.skip()), timeout)
}

const isMethod = (capability: string): capability is FsOptionalMethod => (METHOD_CAPABILITIES as readonly string[]).includes(capability)

/**
 * The provider's own declaration (`fs.capabilities`) says exactly which optional methods it has,
 * and, in a whole suite, the suite's capabilities say the same: a provider that gained `remove`
 * but forgot to say so would otherwise skip its clauses unnoticed, and a caller would refuse what
 * it can do. A clause run by hand (`Harness.of`) only needs what it declares.
 */
function checkMethods(capabilities: ConformanceCapabilities, fs: ConformanceFixture['fs'], wholeSuite: boolean): void {
  for (const method of METHOD_CAPABILITIES) {
    const has = typeof fs[method] === 'function'
    if (fs.capabilities[method] !== has) {
      throw new TypeError(has
        ? `the provider implements ${method}, but its capabilities.${method} is not true: declare it (super(ctx, { ${method}: true, ... }))`
        : `the provider declares capabilities.${method}, but has no ${method} method`)
    }
    if (has ? wholeSuite && capabilities[method] === false : capabilities[method] === true) {
      throw new TypeError(has
        ? `the provider implements ${method}, but capabilities.${method} is false: declare ${method}: true (or leave it out) so its clauses run`
        : `capabilities.${method} is true, but the provider has no ${method} method: implement it, or declare ${method}: false`)
    }
  }
}

/** A declared capability without its helper fails every test at setup, naming both (the types catch it first). */
function checkHelpers(capabilities: ConformanceCapabilities, fixture: ConformanceFixture, wholeSuite = false): ConformanceFixture {
  for (const [capability, [helper, get]] of Object.entries(CAPABILITY_HELPERS)) {
    if (capabilities[capability as keyof ConformanceCapabilities] && typeof get(fixture) !== 'function') {
      throw new TypeError(`capabilities.${capability} is true, but the fixture has no ${helper}: add it, or declare ${capability}: false`)
    }
  }
  checkMethods(capabilities, fixture.fs, wholeSuite)
  return fixture
}
