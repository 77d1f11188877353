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
  for (const name of services) pinned[name] = ctx[name]
  return ctx.extend(pinned)
}
