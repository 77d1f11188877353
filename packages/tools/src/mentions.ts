/**
 * How model-facing text (prompt sections, tool and argument descriptions) names a tool. Clients
 * rename MCP tools (`mcp__dsh__read`, `mcp_dsh_read`, `dsh_read`), and some have built-in tools with
 * the same bare names (opencode's `read`, `write`, `edit`), which bypass this server's policy. So a
 * text never says a tool name on its own: it writes `dsh` and then the name in backticks, alone or
 * as a list — "the dsh `read` tool", "the dsh `read`, `write` and `edit` tools". A prefixed form
 * (`mcp__dsh__read`) is one word and is fine as it is.
 */
const QUALIFIED = /\bdsh (?:`[\w-]+`(?:, | and | or ))*`[\w-]+`/g

/**
 * The places in `text` where one of `names` stands as a word (any case, so the verb "Read" counts:
 * an instruction to read a file is an instruction to call a tool) outside a qualified mention.
 * Each hit is the name with a few characters of context. Empty means the text is safe under any
 * client prefix.
 */
export function bareToolMentions(text: string, names: readonly string[]): string[] {
  const masked = text.replace(QUALIFIED, (mention) => ' '.repeat(mention.length))
  const hits: { at: number; hit: string }[] = []
  for (const name of names) {
    const word = new RegExp(`(?<![\\w])${escape(name)}(?![\\w])`, 'gi')
    for (const match of masked.matchAll(word)) {
      const at = match.index
      hits.push({ at, hit: `${name}: …${text.slice(Math.max(0, at - 20), at + name.length + 20)}…` })
    }
  }
  return hits.sort((a, b) => a.at - b.at).map(({ hit }) => hit)
}

function escape(name: string): string {
  return name.replace(/[-]/g, '\\-')
}
