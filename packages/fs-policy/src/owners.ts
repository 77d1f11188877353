import { randomUUID } from 'node:crypto'
import type { Owner } from './ledger/types'

/**
 * The owner of observed state. The fs contract keeps the actor opaque; this is the only place it is
 * narrowed, to `{ agent?: { session? } }`. A session carrying a string `owner` (the MCP server sets
 * one per bearer token, and `stdio` for its one client) is that owner wherever and whenever it
 * calls; any other session object is its own owner. An actor without a session object has no
 * memory, so every target is unseen to it.
 */
export function ownerOf(actor: object | undefined): Owner | undefined {
  const session = (actor as { agent?: { session?: unknown } } | undefined)?.agent?.session
  if (typeof session !== 'object' || session === null) return undefined
  const owner = (session as { owner?: unknown }).owner
  return typeof owner === 'string' && OWNER_KEY.test(owner) ? owner : session
}

/** Owner keys that persistent stores can put inside their own keys unescaped. */
const OWNER_KEY = /^[A-Za-z0-9_.-]{1,128}$/

const ephemeral = new WeakMap<object, string>()

/**
 * The string a persistent store files an owner under. A session object gets a random key of its
 * own, unknown to any other process: its entries are useless after it ends and expire by TTL.
 */
export function ownerKey(owner: Owner): string {
  if (typeof owner === 'string') return owner
  let key = ephemeral.get(owner)
  if (key === undefined) ephemeral.set(owner, (key = `session-${randomUUID()}`))
  return key
}
