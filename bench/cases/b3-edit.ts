import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FsVersion } from '../../packages/fs/src/index'
import { editByHand } from '../harness/baselines'
import { type CaseResult, fmtBytes, fmtMs, fmtRatio } from '../harness/case'
import { config } from '../harness/config'
import { interleave } from '../harness/interleave'
import type { Scratch } from '../harness/scratch'
import { ratio, summarize } from '../harness/stats'
import { expectOk, toolStack } from '../harness/tool-stack'
import { textOfSize } from '../inputs/text'
import { ensureUpstream, expectUpstreamOk, upstreamStack } from '../harness/upstream'

const TITLE = 'edit'
const BASELINE = 'read (`fs.readFile`) + literal replace of the one occurrence + `write-file-atomic` (`fsync: true`)'
const LIMIT = 1.2

/** A text of about `bytes` with one unique line in its middle, the one every round edits. */
function fileWithMarker(bytes: number): string {
  const text = textOfSize(bytes, 3)
  const middle = text.indexOf('\n', text.length >> 1) + 1
  return `${text.slice(0, middle)}const marker = 'even'\n${text.slice(middle)}`
}

/**
 * A one-line `edit` through `ctx.tools` with the policy loaded (the default stack: the file is read
 * once first, every edit then carries the version the previous one produced), and the provider's
 * `editText` alone, against doing it by hand. Rounds flip the line between two values.
 */
export async function runB3(scratch: Scratch): Promise<CaseResult> {
  const dir = await scratch.dir('b3')
  const bytes = config.b3.fileBytes
  const content = fileWithMarker(bytes)
  for (const name of ['tool.txt', 'provider.txt', 'hand.txt', 'upstream.txt']) await writeFile(join(dir, name), content)
  const stack = await toolStack(dir, { policy: true })
  const upstreamMissing = await ensureUpstream()
  const upstream = upstreamMissing === undefined ? await upstreamStack(dir) : undefined
  const lines = ["const marker = 'even'", "const marker = 'odd'"]
  const from = (round: number) => lines[round % 2]!
  const to = (round: number) => lines[(round + 1) % 2]!
  try {
    expectOk(await stack.call('read', { file_path: 'tool.txt', limit: 1 }), 'read before edit')
    const providerTarget = await stack.fs.resolve(join(dir, 'provider.txt'))
    let version: FsVersion = (await stack.fs.stat(providerTarget))!.version
    const { samples } = await interleave([
      {
        name: 'tool',
        run: async (round) => expectOk(await stack.call('edit', { file_path: 'tool.txt', old_string: from(round), new_string: to(round) }), 'edit'),
      },
      {
        name: 'provider',
        run: async (round) => {
          const outcome = await stack.fs.editText(providerTarget, { oldString: from(round), newString: to(round), replaceAll: false }, { expected: { version } })
          version = outcome.version
        },
      },
      { name: 'hand', run: (round) => editByHand(join(dir, 'hand.txt'), from(round), to(round)) },
      ...(upstream === undefined ? [] : [{
        name: 'upstream',
        run: async (round: number) => expectUpstreamOk(await upstream.call('edit', { file_path: 'upstream.txt', old_string: from(round), new_string: to(round) }), 'edit'),
      }]),
    ], { ...config.b3, rotate: true })
    const tool = summarize(samples.tool!)
    const provider = summarize(samples.provider!)
    const hand = summarize(samples.hand!)
    const r = ratio(tool, hand)
    const up = samples.upstream ? summarize(samples.upstream) : undefined
    return {
      id: 'B3', title: TITLE, baseline: BASELINE,
      tables: [{
        header: ['subject', 'file', 'rounds', 'time', 'ratio to baseline'],
        rows: [
          ['`edit` tool via `ctx.tools` (policy loaded)', fmtBytes(Buffer.byteLength(content)), String(tool.n), fmtMs(tool), fmtRatio(r)],
          ['`ctx.fs.editText` (version-guarded)', '', String(provider.n), fmtMs(provider), fmtRatio(ratio(provider, hand))],
          ['baseline: read + replace + write-file-atomic', '', String(hand.n), fmtMs(hand), '1.00×'],
          ...(up ? [['upstream `edit` tool (dsh-tool-fs 0.1.0-rc.8, no policy published)', '', String(up.n), fmtMs(up), fmtRatio(ratio(up, hand))]] : []),
        ],
      }],
      verdicts: [
        { target: `one-line edit of ${fmtBytes(bytes)}: ≤ ${LIMIT}× baseline`, measured: fmtRatio(r), met: r <= LIMIT },
        up
          ? { target: 'ratio to upstream\'s `edit` tool (report)', measured: `${fmtRatio(ratio(tool, up))} (${tool.median.toFixed(1)} vs ${up.median.toFixed(1)} ms)`, met: null }
          : { target: 'ratio to upstream', measured: `not measured: ${upstreamMissing}`, met: null },
      ],
      notes: [
        'Both sides fsync the new file; dsh also fsyncs the directory after the rename and holds the publication lock, its staged file\'s name (see B2).',
        ...(r > LIMIT ? [
          'Cause (`node --cpu-prof` of 10 MiB edits): besides the write path of B2, `spliceLiteral` (`packages/fs/src/edit.ts`) builds an LF-normalised copy of the whole text, scans it again in `dominantLineEnding` and once more in `rawOffsetMapper`, and `decodeText` decodes the whole file; the baseline does one `indexOf` on the text it read.',
          'Fix (for the lead): in `spliceLiteral`, when the text contains no `\\r` (`text.indexOf(\'\\r\') < 0`), match on `text` directly and skip the normalised copy, the offset mapper and the line-ending count (the file is LF); otherwise keep today\'s path. The B2 fixes to the publish path apply as well.',
        ] : []),
      ],
    }
  } finally {
    await stack.dispose()
    await upstream?.dispose()
  }
}
