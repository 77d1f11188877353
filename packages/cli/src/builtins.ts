/**
 * The plugins `dsh` is built with, by the package name a config gives them. The build bundles
 * each into a chunk of the CLI (zod, the MCP SDK and the loader included), so booting the default
 * config reads a handful of files instead of several hundred: that is most of a cold start on
 * Node 20. Only a name a config actually uses is imported; any other name (fs-e2b and its SDK,
 * a user's own plugin) goes through the loader's ordinary `import(name)`.
 *
 * The CLI pins these packages exactly, so a bundled copy is the release installed beside it.
 * Duplicates are safe by design: plugins meet through services and events by name, `FsError.is`
 * marks errors with `Symbol.for`, and `cordis` itself is never bundled (one copy per process).
 */
export const BUILT_IN: Readonly<Record<string, () => Promise<unknown>>> = {
  '@deepseek-ai/dsh-fs-local': () => import('@deepseek-ai/dsh-fs-local'),
  '@deepseek-ai/dsh-fs-policy': () => import('@deepseek-ai/dsh-fs-policy'),
  '@deepseek-ai/dsh-tools': () => import('@deepseek-ai/dsh-tools'),
  '@deepseek-ai/dsh-tool-fs': () => import('@deepseek-ai/dsh-tool-fs'),
  '@deepseek-ai/dsh-tool-str-replace-editor': () => import('@deepseek-ai/dsh-tool-str-replace-editor'),
  '@deepseek-ai/dsh-mcp': () => import('@deepseek-ai/dsh-mcp'),
}
