import { z } from 'zod'

/** Where observations live: this process's memory, a journal file, or a Redis database. */
export type LedgerSpec =
  | { kind: 'memory' }
  | { kind: 'file'; path: string }
  | { kind: 'redis'; url: string }

/** `memory`, `file:<path>` or `redis://host:port[/db]` (also `rediss://`), as the `ledger` key spells it. */
export function parseLedgerSpec(text: string): LedgerSpec | string {
  if (text === 'memory') return { kind: 'memory' }
  if (text.startsWith('file:')) {
    const path = text.slice('file:'.length)
    return path.length === 0 ? 'file: needs a path, e.g. file:/var/lib/dsh/ledger.journal' : { kind: 'file', path }
  }
  if (/^rediss?:\/\//.test(text)) {
    let url: URL
    try {
      url = new URL(text)
    } catch {
      return `${text} is not a valid URL`
    }
    if (url.hostname === '') return `${text} names no host`
    const db = url.pathname.replace(/^\//, '')
    if (db !== '' && !/^\d{1,2}$/.test(db)) return `the database in ${text} must be a number (e.g. redis://127.0.0.1:6379/2)`
    return { kind: 'redis', url: text }
  }
  return `unknown ledger ${JSON.stringify(text)}: use memory, file:<path> or redis://host:port[/db]`
}

/** The policy's options. Every default is the seed notes' rule and today's store (memory); each new behaviour is opt-in. */
export const Config = z.object({
  seenBeforeReplace: z.boolean().default(false)
    .describe('A whole-file replacement (`write`) of an existing file is allowed only when this session was shown every line of the version it replaces; otherwise it is refused with FS_NOT_SEEN, naming the lines seen.'),
  ledger: z.string().default('memory').superRefine((text, issues) => {
    const spec = parseLedgerSpec(text)
    if (typeof spec === 'string') issues.addIssue({ code: 'custom', message: spec })
  }).describe('Where observations are kept: memory (this process), file:<path> (a journal that survives restarts) or redis://host:port[/db] (shared by every replica).'),
  entryTtlSeconds: z.number().int().min(1).max(365 * 24 * 3600).default(24 * 3600)
    .describe('An observation not renewed for this long is forgotten: the target is unseen again.'),
  maxEntriesPerOwner: z.number().int().min(1).max(1_000_000).default(10_000)
    .describe('Most targets remembered per owner; recording one more forgets the least recently recorded.'),
  maxOwners: z.number().int().min(1).max(1_000_000).default(1_000)
    .describe('Most owners a memory or file ledger keeps; one more forgets the owner written least recently (Redis bounds itself with maxmemory).'),
  retryTtlSeconds: z.number().int().min(0).max(24 * 3600).default(0)
    .describe('A mutating call repeated with the same owner, tool and arguments within this time returns the first outcome instead of running again; 0 turns this off.'),
  timeoutMs: z.number().int().min(10).max(60_000).default(2_000)
    .describe('Longest a Redis ledger operation may take before the call fails saying so.'),
}).strict().prefault({})

export type PolicyConfig = z.output<typeof Config>
export type Config = PolicyConfig
export type PolicyConfigInput = z.input<typeof Config>
