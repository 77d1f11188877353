import { type FsErrorCode, FsError, type FsTarget, type FsVersion } from '@deepseek-ai/dsh-fs'
import { writeFile } from 'node:fs/promises'
import { expect } from 'vitest'
import type { Provider } from './sandbox'

/**
 * One round of a race: every provider attempts at once; exactly one may win and every loser must
 * fail `loserCode`. Returns the winner's index and how many lost.
 */
export async function race(
  providers: Provider[], loserCode: FsErrorCode, attempt: (provider: Provider, i: number) => Promise<unknown>, label = '',
): Promise<{ winner: number; losers: number }> {
  const results = await Promise.allSettled(providers.map(attempt))
  const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []))
  const reasons = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []))
  expect(winners.length, `${label}: ${reasons.map(String).join('; ')}`).toBe(1)
  for (const reason of reasons) expect(FsError.is(reason, loserCode), `${label}: ${String(reason)}`).toBe(true)
  return { winner: winners[0]!, losers: reasons.length }
}

/** A race from one version: `path` holds `seed`, and every provider attempts against the version it had then. */
export async function raceFromOneVersion(
  providers: Provider[], path: string, seed: string,
  attempt: (provider: Provider, target: FsTarget, version: FsVersion, i: number) => Promise<unknown>, label = '',
): Promise<{ winner: number; losers: number }> {
  await writeFile(path, seed)
  const targets = await Promise.all(providers.map((provider) => provider.fs.resolve(path)))
  const version = (await providers[0]!.fs.stat(targets[0]!))!.version
  return race(providers, 'FS_STALE_VERSION', (provider, i) => attempt(provider, targets[i]!, version, i), label)
}
