import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { FsVersion } from '../../packages/fs/src/index'
import { atomicWrite, atomicWriteDirSync, writeFileFsync } from '../harness/baselines'
import { type CaseResult, fmtBytes, fmtMs, fmtRatio, type Table, type Verdict } from '../harness/case'
import { config } from '../harness/config'
import { interleave, type Variant } from '../harness/interleave'
import type { Scratch } from '../harness/scratch'
import { localFsStack } from '../harness/stack'
import { ratio, summarize } from '../harness/stats'
import { textOfSize } from '../inputs/text'

const TITLE = 'durable write'
const BASELINE = '`write-file-atomic` 7 (`fsync: true`) and `fs.writeFile` + `fsync`, same content, same directory; also write-file-atomic followed by a directory fsync, the floor of an atomic write that survives a crash'
const LIMIT = 1.1
const VARIANTS = ['dsh', 'wfa', 'plain', 'floor']

/**
 * `writeText` as the `write` tool drives it: a create is `createIfAbsent` (link publication) and a
 * replace is `replaceIfVersion` with the version of the previous write (rename publication).
 */
export async function runB2(scratch: Scratch): Promise<CaseResult> {
  const dir = await scratch.dir('b2')
  const stack = await localFsStack(dir)
  const tables: Table[] = []
  const verdicts: Verdict[] = []
  const rows: string[][] = []
  try {
    for (const bytes of config.b2.sizes) {
      const contents = [textOfSize(bytes, 1), textOfSize(bytes, 2)]
      const options = { rounds: config.b2.rounds(bytes), warmup: config.b2.warmup }
      const file = (variant: string, round: number) => join(dir, `${variant}-${bytes}-${round}.txt`)
      // A new name per round (creates); the previous round's file is removed untimed.
      const drop = (variant: string) => async (round: number) => {
        if (round > 0) await rm(file(variant, round - 1), { force: true })
      }
      const create: Variant[] = [
        {
          name: 'dsh', prepare: drop('dsh'),
          run: async (round) => stack.fs.writeText(await stack.target(file('dsh', round)), contents[0]!, { kind: 'createIfAbsent' }),
        },
        { name: 'wfa', prepare: drop('wfa'), run: (round) => atomicWrite(file('wfa', round), contents[0]!) },
        { name: 'plain', prepare: drop('plain'), run: (round) => writeFileFsync(file('plain', round), contents[0]!) },
        { name: 'floor', prepare: drop('floor'), run: (round) => atomicWriteDirSync(file('floor', round), contents[0]!) },
      ]
      const created = await interleave(create, options)
      for (const v of VARIANTS) await rm(file(v, options.rounds + options.warmup - 1), { force: true })

      const same = (variant: string) => join(dir, `${variant}-${bytes}-replace.txt`)
      const first = await stack.fs.writeText(await stack.target(same('dsh')), contents[1]!)
      let version: FsVersion = first.version
      await atomicWrite(same('wfa'), contents[1]!)
      await writeFileFsync(same('plain'), contents[1]!)
      await atomicWriteDirSync(same('floor'), contents[1]!)
      const replace: Variant[] = [
        {
          name: 'dsh',
          run: async (round) => {
            const outcome = await stack.fs.writeText(await stack.target(same('dsh')), contents[round % 2]!, { kind: 'replaceIfVersion', version })
            version = outcome.version
          },
        },
        { name: 'wfa', run: (round) => atomicWrite(same('wfa'), contents[round % 2]!) },
        { name: 'plain', run: (round) => writeFileFsync(same('plain'), contents[round % 2]!) },
        { name: 'floor', run: (round) => atomicWriteDirSync(same('floor'), contents[round % 2]!) },
      ]
      const replaced = await interleave(replace, options)
      for (const v of VARIANTS) await rm(same(v), { force: true })

      for (const [op, result] of [['create', created], ['replace', replaced]] as const) {
        const dsh = summarize(result.samples.dsh!)
        const wfa = summarize(result.samples.wfa!)
        const plain = summarize(result.samples.plain!)
        const floor = summarize(result.samples.floor!)
        const r = ratio(dsh, wfa)
        rows.push([op, fmtBytes(bytes), String(dsh.n), fmtMs(dsh), fmtMs(wfa), fmtMs(plain), fmtMs(floor),
          fmtRatio(r), fmtRatio(ratio(dsh, plain)), fmtRatio(ratio(floor, wfa)), fmtRatio(ratio(dsh, floor))])
        verdicts.push({ target: `${op} ${fmtBytes(bytes)}: ≤ ${LIMIT}× write-file-atomic`, measured: fmtRatio(r), met: r <= LIMIT })
      }
    }
  } finally {
    await stack.dispose()
  }
  tables.push({
    header: ['operation', 'size', 'rounds', 'dsh writeText', 'write-file-atomic (wfa)', 'writeFile + fsync', 'wfa + dir fsync (floor)', 'dsh ÷ wfa', 'dsh ÷ plain', 'floor ÷ wfa', 'dsh ÷ floor'],
    rows,
  })
  return {
    id: 'B2', title: TITLE, baseline: BASELINE, tables, verdicts,
    notes: [
      'dsh fsyncs the file and then its parent directory after `link`/`rename`; write-file-atomic fsyncs the file only, and `writeFile` + `fsync` is neither atomic nor directory-durable.',
      'A dsh replace also reads the previous content first (inside the lock) to keep its BOM and CRLF style; the baselines do not.',
    ],
  }
}
