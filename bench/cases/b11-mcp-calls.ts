import { constants } from 'node:fs'
import { mkdir, open, rename, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '../../packages/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js'
import { StdioClientTransport } from '../../packages/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js'
import writeFileAtomic from 'write-file-atomic'
import { atomicWriteDirSync } from '../harness/baselines'
import { buildState } from '../harness/build-state'
import { now } from '../harness/clock'
import { type CaseResult, fmtBytes, fmtMs, fmtRatio, notMeasured, type Verdict } from '../harness/case'
import { config } from '../harness/config'
import { interleave, type Variant } from '../harness/interleave'
import { REPO } from '../harness/paths'
import type { Scratch } from '../harness/scratch'
import { blockRatios, summarize, type Summary } from '../harness/stats'
import { textOfSize } from '../inputs/text'

const TITLE = 'local calls over MCP'
const BASELINE = 'the official `@modelcontextprotocol/server-filesystem` over stdio, same client, same 4 KiB file, calls interleaved with ours'
const LOADED = ['fs', 'fs-local', 'fs-policy', 'tools', 'tool-fs', 'tool-str-replace-editor', 'mcp', 'cli']
const OFFICIAL = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')
const READ_LIMIT = 1.0
const WRITE_LIMIT = 1.1
const MARKERS = ["const marker = 'even'", "const marker = 'odd'"]

type Caller = (name: string, args: Record<string, unknown>) => Promise<void>

async function connect(args: string[], cwd: string): Promise<{ call: Caller; close(): Promise<void> }> {
  const client = new Client({ name: 'dsh-bench', version: '0.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd, stderr: 'ignore' }))
  return {
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args })
      if (result.isError) throw new Error(`${name} over MCP failed: ${JSON.stringify(result.content)}`)
    },
    close: () => client.close(),
  }
}

/**
 * What dsh's two durability steps cost on this disk, measured beside the calls, as dsh makes them:
 * the fsync of a freshly written 4 KiB file, then (after the untimed rename of that file over the
 * target) the fsync of the directory the rename changed. The official server does neither, so the
 * targets for `edit` and `write` allow for exactly this. Without the rename in between, the file's
 * fsync would commit the directory's new entry too and leave the directory's fsync nothing to do.
 */
function fsyncPair(dir: string, content: string, op: string): Variant & { close(): Promise<void> } {
  const target = join(dir, `fsync-${op}.txt`)
  let staged: string | undefined
  return {
    name: 'fsyncs',
    timesItself: true,
    close: async () => {
      if (staged !== undefined) await unlink(staged).catch(() => undefined)
    },
    // A fresh file beside the target, written but not yet synced (untimed).
    prepare: async (round) => {
      staged = join(dir, `.fsync-${op}-${round}.tmp`)
      await writeFile(staged, content, { flag: 'wx' })
    },
    run: async () => {
      const file = await open(staged!, constants.O_RDONLY)
      const parent = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY)
      try {
        const a = now()
        await file.sync()
        const fileSync = now() - a
        await rename(staged!, target)
        staged = undefined
        const b = now()
        await parent.sync()
        return fileSync + (now() - b)
      } finally {
        await Promise.all([file.close(), parent.close()])
      }
    },
  }
}

/**
 * `read`, `edit` and `write` of one 4 KiB file through the official MCP SDK client over stdio:
 * `dsh start` with its default config against the reference filesystem server, each call of ours
 * followed by the same call of theirs, so load on the machine hits both alike.
 */
export async function runB11(scratch: Scratch): Promise<CaseResult> {
  const target = 'read ≤ 1.0× official; edit, write ≤ 1.1× official + two fsyncs'
  const build = buildState(LOADED)
  if (build.missing.length > 0) {
    return notMeasured('B11', TITLE, BASELINE, `\`dsh\` runs the built packages and ${build.missing.join(', ')} are not built (run \`pnpm build\` first)`, target)
  }
  const root = await scratch.dir('b11')
  const ours = join(root, 'dsh')
  const theirs = join(root, 'official')
  const fsyncDir = join(root, 'fsync')
  const bytes = 4 * 1024
  const content = `${MARKERS[0]}\n${textOfSize(bytes - MARKERS[0]!.length - 1, 7)}`
  for (const dir of [ours, theirs, fsyncDir]) {
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'small.txt'), content)
  }
  const dsh = await connect([join(REPO, 'packages/cli/bin/dsh.js'), 'start'], ours)
  const official = await connect([OFFICIAL, theirs], theirs)
  const officialPath = join(theirs, 'small.txt')
  const rows: string[][] = []
  const verdicts: Verdict[] = []
  try {
    await dsh.call('read', { file_path: 'small.txt' })
    const from = (round: number) => MARKERS[round % 2]!
    const to = (round: number) => MARKERS[(round + 1) % 2]!
    const written = (round: number) => `${content}// round ${round}\n`
    const ops: Array<[string, Variant[]]> = [
      ['read', [
        { name: 'dsh', run: () => dsh.call('read', { file_path: 'small.txt' }) },
        { name: 'official', run: () => official.call('read_text_file', { path: officialPath }) },
      ]],
      ['edit', [
        { name: 'dsh', run: (round) => dsh.call('edit', { file_path: 'small.txt', old_string: from(round), new_string: to(round) }) },
        { name: 'official', run: (round) => official.call('edit_file', { path: officialPath, edits: [{ oldText: from(round), newText: to(round) }] }) },
        fsyncPair(fsyncDir, content, 'edit'),
        // What the official edit does to the disk (temp file + rename, no fsync), and the same made durable.
        { name: 'unsynced', run: (round) => writeFileAtomic(join(fsyncDir, 'edit-unsynced.txt'), written(round), { fsync: false }) },
        { name: 'floor', run: (round) => atomicWriteDirSync(join(fsyncDir, 'edit-floor.txt'), written(round)) },
      ]],
      ['write', [
        { name: 'dsh', run: (round) => dsh.call('write', { file_path: 'small.txt', content: written(round) }) },
        { name: 'official', run: (round) => official.call('write_file', { path: officialPath, content: written(round) }) },
        fsyncPair(fsyncDir, content, 'write'),
        // What the official write does to the disk (`fs.writeFile` in place), and a durable atomic write.
        { name: 'unsynced', run: (round) => writeFile(join(fsyncDir, 'write-unsynced.txt'), written(round)) },
        { name: 'floor', run: (round) => atomicWriteDirSync(join(fsyncDir, 'write-floor.txt'), written(round)) },
      ]],
    ]
    for (const [op, variants] of ops) {
      // Every op starts from the same bytes on both sides.
      if (op === 'edit') await Promise.all([ours, theirs].map((dir) => writeFile(join(dir, 'small.txt'), content)))
      if (op === 'edit') await dsh.call('read', { file_path: 'small.txt' })
      const { samples } = await interleave(variants, { rounds: config.b11.rounds, warmup: config.b11.warmup, rotate: true })
      for (const variant of variants) if ('close' in variant) await (variant as { close(): Promise<void> }).close()
      const mine = summarize(samples.dsh!)
      const base = summarize(samples.official!)
      const syncs: Summary | undefined = samples.fsyncs ? summarize(samples.fsyncs) : undefined
      const r = mine.median / base.median
      const allowed = syncs === undefined ? READ_LIMIT * base.median : WRITE_LIMIT * base.median + syncs.median
      // The official server's figure with its disk work replaced by the cheapest durable atomic
      // write (write-file-atomic + directory fsync), both measured in process in the same rounds.
      const durable = samples.floor && samples.unsynced ? base.median + summarize(samples.floor).median - summarize(samples.unsynced).median : undefined
      const spread = blockRatios(samples.dsh!, samples.official!)
      rows.push([`\`${op}\``, String(mine.n), fmtMs(mine, 3), fmtMs(base, 3), fmtRatio(r), spread === undefined ? '—' : `${fmtRatio(spread.min)}–${fmtRatio(spread.max)}`, syncs ? fmtMs(syncs, 3) : '—', `${allowed.toFixed(3)} ms`,
        durable === undefined ? '—' : `${durable.toFixed(3)} ms; dsh ÷ it ${fmtRatio(mine.median / durable)}`])
      verdicts.push({
        target: syncs === undefined ? `\`read\` ≤ ${READ_LIMIT}× official` : `\`${op}\` ≤ ${WRITE_LIMIT}× official + two fsyncs`,
        measured: `${mine.median.toFixed(3)} ms vs ${allowed.toFixed(3)} ms allowed (${fmtRatio(r)} official)`,
        met: mine.median <= allowed,
      })
    }
  } finally {
    await Promise.all([dsh.close(), official.close()])
  }
  return {
    id: 'B11', title: TITLE, baseline: BASELINE,
    tables: [{
      caption: `One ${fmtBytes(bytes)} file per server; each round calls dsh, the official server and (for edit and write) the fsync pair, in rotating order. \`dsh start\` with the default \`cordis.yml\` (built packages, policy loaded); the official server \`${OFFICIAL.split('node_modules/')[1]}\` rooted at its own folder.`,
      header: ['call', 'rounds', 'dsh', 'official', 'dsh ÷ official', 'dsh ÷ official in each fifth of the rounds (min–max)', 'fsync of a fresh file + of its directory after the rename into it', 'allowed by the target', 'official with its disk work made durable and atomic (+ floor − its own disk work)'],
      rows,
    }],
    verdicts,
    notes: [
      'The official server writes with `fs.writeFile` (edit: temp file + rename) and never fsyncs; dsh publishes atomically and fsyncs the file and its directory, which the allowance adds back at the cost measured in the same rounds, as dsh makes them: the fsync of a freshly written 4 KiB file, then (after an untimed rename of it into the directory) the fsync of that directory.',
      'How dsh gets there: a replacement is staged in a file beside its target (no staging directory to make and remove); on a local disk every call but the two fsyncs (and the close that frees the replaced file) runs on the loop thread (`inlineCalls`), so a write makes two thread-pool trips; the provider tells the tool the outcome as soon as the new version is known (`hooks.published`), so the reply is rendered and the observation recorded while the directory fsync runs; descriptors are closed after the answer.',
      'Last column: the two fsyncs are not all that durable atomic publication costs. A new inode is allocated and journaled, the rename and the directory fsync commit it, the replaced inode is freed. The column takes the official figure, removes the official server\'s own disk work (`fs.writeFile` in place for write; temp file + rename without fsync for edit, via write-file-atomic `fsync: false`, which does a little more than that server\'s own temp file and rename, so the column errs against dsh) and adds the cheapest durable atomic write (write-file-atomic + directory fsync). All three are measured in process, in the same rounds, on the same content. What remains between dsh and that figure is dsh\'s own cost: the version guard, the staging directory, the publication lock, the BOM/CRLF read and the rendered reply.',
      ...(build.stale.length > 0 ? [`The built lib/ of ${build.stale.join(', ')} was older than its sources when this ran: \`pnpm build\` before \`pnpm bench\` to measure the current code.`] : []),
    ],
  }
}
