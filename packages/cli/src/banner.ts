import type { Context } from 'cordis'
import type {} from '@cordisjs/plugin-loader'

/** Config fields worth showing for a filesystem provider (never credentials such as `apiKey`). */
const SHOWN_FS_FIELDS = ['root', 'cwd', 'sandboxId', 'template']

/**
 * The short summary `dsh start` prints to stderr once the config is running: which provider holds
 * the files and where, which tools a client will see, and how to reach the MCP server.
 */
export function banner(ctx: Context, options: { version: string; configFile: string; ms: number; urls: string[] }): string {
  const lines = [`dsh ${options.version}: ${options.configFile} loaded in ${Math.round(options.ms)} ms`]
  const fsFiber = ctx.reflect._getImpl('fs')?.fiber
  if (fsFiber === undefined) {
    lines.push('  files      (no filesystem provider)')
  } else {
    const fields = SHOWN_FS_FIELDS
      .filter((key) => typeof fsFiber.config?.[key] === 'string')
      .map((key) => `${key} ${fsFiber.config[key]}`)
    lines.push(`  files      ${entryName(ctx, fsFiber)}${fields.length > 0 ? `  (${fields.join(', ')})` : ''}`)
  }
  const tools = ctx.get('tools')?.list().map((tool: { name: string }) => tool.name) ?? []
  lines.push(`  tools      ${tools.length > 0 ? tools.join(', ') : '(none)'}`)
  // An HTTP endpoint is known by the address it announced (`port: 0` picks one), stdio by its config.
  const stdio = [...ctx.loader.entries()]
    .filter((entry) => entry.fiber?.runtime?.name === 'dsh-mcp' && entry.fiber.config?.transport === 'stdio')
    .map((): string => 'stdio')
  const endpoints = stdio.concat(options.urls.map((url) => `Streamable HTTP ${url}`))
  lines.push(`  transport  ${endpoints.length > 0 ? endpoints.join(', ') : '(no mcp entry: nothing is served)'}`)
  return lines.join('\n')
}

function entryName(ctx: Context, fiber: NonNullable<ReturnType<Context['reflect']['_getImpl']>>['fiber']): string {
  const id = ctx.loader.locate(fiber)
  return id === undefined ? fiber.name : String(ctx.loader.resolve(id).options.name)
}
