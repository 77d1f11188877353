import type { Context } from 'cordis'

/**
 * A context for a tool plugin's calls in which the named services and the event methods are read
 * once. Cordis builds a tracing proxy (and a context or two) on every read of `ctx.fs` or
 * `ctx.emit`, which a tool call would otherwise pay several times over. Name only services the
 * plugin injects: they cannot change under it, since a replaced provider restarts the plugin and
 * with it this context. The services themselves are still cordis' tracing views, so a provider
 * sees the plugin as its caller exactly as through `ctx`.
 */
export function pinServices<K extends Extract<keyof Context, string>>(ctx: Context, services: readonly K[]): Context {
  const pinned: Record<string, unknown> = { emit: ctx.emit, waterfall: ctx.waterfall }
  for (const name of services) pinned[name] = pinMethods(ctx[name])
  return ctx.extend(pinned)
}

/**
 * The tracing view `service` with each method read once. Every read of a method through cordis'
 * view builds the method's shadow context anew (two proxies and a context); the method read once
 * and called on that same view runs exactly as a fresh read would, with `this` the caller's
 * shadow. Only own and prototype methods the provider had when the plugin started are kept: a
 * property that is not a function (a getter's value included) is read through the view every time.
 */
function pinMethods<T>(service: T): T {
  if (typeof service !== 'object' || service === null) return service
  const methods = new Map<string, (...args: unknown[]) => unknown>()
  return new Proxy(service, {
    get(view, property) {
      if (typeof property !== 'string') return Reflect.get(view, property)
      const known = methods.get(property)
      if (known !== undefined) return known
      const value: unknown = Reflect.get(view, property)
      if (typeof value !== 'function' || isAccessor(view, property)) return value
      const method = (...args: unknown[]) => Reflect.apply(value, view, args)
      methods.set(property, method)
      return method
    },
  })
}

/** Whether `property` is read through a getter somewhere on `target`'s prototype chain. */
function isAccessor(target: object, property: string): boolean {
  for (let at: object | null = target; at !== null; at = Object.getPrototypeOf(at)) {
    const descriptor = Object.getOwnPropertyDescriptor(at, property)
    if (descriptor !== undefined) return descriptor.get !== undefined
  }
  return false
}
