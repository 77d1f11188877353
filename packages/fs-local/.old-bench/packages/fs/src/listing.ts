import type { FsDirEntry, FsDirListing, FsListOptions } from './types'

/**
 * The names a listing shows, from all the names a directory holds: name order, hidden names left
 * out when asked, then cut at the limit. Sorting names is cheap; what a limit saves is everything a
 * provider does per shown entry (a stat, a realpath).
 */
export function listingWindow(names: readonly string[], opts: FsListOptions = {}): { shown: string[]; omitted: number } {
  const kept = (opts.hidden === false ? names.filter((name) => !name.startsWith('.')) : [...names]).sort()
  if (opts.limit === undefined || kept.length <= opts.limit) return { shown: kept, omitted: 0 }
  const limit = Math.max(0, Math.floor(opts.limit))
  return { shown: kept.slice(0, limit), omitted: kept.length - limit }
}

/** A listing with its `omitted` count attached (left off when nothing was cut). */
export function toListing(entries: FsDirEntry[], omitted: number): FsDirListing {
  const listing: FsDirListing = entries
  if (omitted > 0) listing.omitted = omitted
  return listing
}

/**
 * What a caller shows of any provider's listing: the options applied again, for providers that
 * ignore them (the contract lets them), and the total of entries left out.
 */
export function cutListing(listing: FsDirListing, opts: FsListOptions = {}): { entries: FsDirEntry[]; omitted: number } {
  let entries: FsDirEntry[] = opts.hidden === false ? listing.filter((entry) => !entry.name.startsWith('.')) : [...listing]
  let omitted = listing.omitted ?? 0
  if (opts.limit !== undefined && entries.length > opts.limit) {
    omitted += entries.length - opts.limit
    entries = entries.slice(0, opts.limit)
  }
  return { entries, omitted }
}
