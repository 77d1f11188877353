/** What differs between the dsh configs the e2e specs start: each entry's flow-style YAML config. */
export interface StackEntries {
  /** The fs provider's package; fs-local unless given. */
  fsName?: string
  fs: string
  /** Omitted: the policy entry has no config line (its defaults). */
  policy?: string | undefined
  mcp: string
}

/** A dsh config of the shipped plugins, in the shipped order (fs, policy, tools, tool-fs, mcp). */
export function stackConfig(entries: StackEntries): string {
  return [
    ...entry('fs', entries.fsName ?? '@deepseek-ai/dsh-fs-local', entries.fs),
    ...entry('policy', '@deepseek-ai/dsh-fs-policy', entries.policy),
    ...entry('tools', '@deepseek-ai/dsh-tools'),
    ...entry('tool-fs', '@deepseek-ai/dsh-tool-fs'),
    ...entry('mcp', '@deepseek-ai/dsh-mcp', entries.mcp),
    '',
  ].join('\n')
}

/** fs-local's config serving `dir` as both its working directory and its root. */
export function localFs(dir: string): string {
  return `{ cwd: '${dir}', root: '${dir}' }`
}

function entry(id: string, name: string, config?: string): string[] {
  return [`- id: ${id}`, `  name: '${name}'`, ...(config === undefined ? [] : [`  config: ${config}`])]
}
