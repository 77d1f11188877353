import { execFile, execFileSync } from 'node:child_process'
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseIdentity, parseStatLine } from './parse'
import { INSPECT, LIST, PUBLISH, READ, RESOLVE, STAT } from './scripts'
import { controlCommand, scriptOutput } from './shell'
import { STATUS } from './status'

const exec = promisify(execFile)
const has = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
// Root passes every mode check: the other user's rules run the script under setpriv as uid 65534.
const canDrop = process.getuid?.() === 0 && has('setpriv')
// Debian packages `acl` and `attr`.
const hasSetfacl = ['setfacl', 'getfacl', 'setfattr', 'getfattr'].every(has)

// The scripts run here under the local bash, with the same command line the sandbox receives:
// the exit-code table is checked against real files, FIFOs and links.
function runLocal(script: string, args: string[], asUser?: string[]): Promise<{ exitCode: number; output: string }> {
  const [command, argv] = asUser === undefined ? ['bash', ['-c', controlCommand(script, args)]] : ['setpriv', [...asUser, 'bash', '-c', controlCommand(script, args)]]
  return new Promise((done) => {
    execFile(command, argv, { timeout: 5000 }, (error, stdout) => {
      const exitCode = error ? (typeof error.code === 'number' ? error.code : -1) : 0
      done({ exitCode, output: scriptOutput(stdout) ?? '' })
    })
  })
}

let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-e2b-scripts-')))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const STAGE_DIR = `.dsh-stage.${'0123456789abcdef'.repeat(2)}`

async function staged(name: string, text: string): Promise<string> {
  const stage = join(dir, STAGE_DIR, name)
  await mkdir(join(dir, STAGE_DIR), { recursive: true })
  await writeFile(stage, text)
  return stage
}

describe('STAT and READ', () => {
  it('tell a missing path, a path under a file and a dangling link apart', async () => {
    await writeFile(join(dir, 'f'), 'x')
    await symlink('nowhere', join(dir, 'dangling'))
    expect((await runLocal(STAT, [join(dir, 'missing')])).exitCode).toBe(STATUS.ABSENT)
    expect((await runLocal(STAT, [join(dir, 'f', 'child')])).exitCode).toBe(STATUS.NOT_DIRECTORY)
    expect((await runLocal(STAT, [join(dir, 'dangling')])).exitCode).toBe(STATUS.DANGLING)
  })

  it('refuse a FIFO as NOT_REGULAR without opening it', async () => {
    await new Promise((done) => execFile('mkfifo', [join(dir, 'pipe')], done))
    const result = await runLocal(READ, [join(dir, 'pipe'), 'content'])
    expect(result.exitCode).toBe(STATUS.NOT_REGULAR)
    expect(parseStatLine(result.output.split('\n')[0]!, 'pipe').type).toBe('other')
  })

  it('print the bytes between two equal stat lines', async () => {
    await writeFile(join(dir, 'f'), Uint8Array.of(0, 1, 2, 0xff))
    const result = await runLocal(READ, [join(dir, 'f'), 'content'])
    const [before, base64, after] = result.output.split('\n')
    expect(result.exitCode).toBe(0)
    expect([...Buffer.from(base64!, 'base64')]).toEqual([0, 1, 2, 0xff])
    expect(after).toBe(before)
  })
})

describe('RESOLVE and INSPECT', () => {
  it('name a symlink by its target, a dangling link by itself, and print the directory\'s realpath', async () => {
    await writeFile(join(dir, 'real.txt'), 'r')
    await symlink('real.txt', join(dir, 'link.txt'))
    await symlink('nowhere', join(dir, 'dangling'))
    await symlink('.', join(dir, 'here'))
    const identity = async (path: string) => parseIdentity((await runLocal(RESOLVE, [path])).output, path).identity
    expect(await identity(join(dir, 'here', 'link.txt'))).toEqual({ key: join(dir, 'real.txt'), parent: dir })
    expect(await identity(join(dir, 'dangling'))).toEqual({ key: join(dir, 'dangling'), parent: dir })
    expect(await identity(join(dir, 'here', 'new', 'x.txt'))).toEqual({ key: join(dir, 'new', 'x.txt'), parent: join(dir, 'new') })
  })

  it('print the bytes of a file within the bound between two equal stat lines, and only the stat line beyond it', async () => {
    await writeFile(join(dir, 'f'), Uint8Array.of(0, 1, 2, 0xff))
    const within = await runLocal(INSPECT, [join(dir, 'f'), '4'])
    const [before, base64, after] = parseIdentity(within.output, 'f').rest.split('\n')
    expect(within.exitCode).toBe(0)
    expect([...Buffer.from(base64!, 'base64')]).toEqual([0, 1, 2, 0xff])
    expect(after).toBe(before)
    for (const bound of ['3', '']) {
      const beyond = await runLocal(INSPECT, [join(dir, 'f'), bound])
      expect(beyond.exitCode).toBe(0)
      expect(parseIdentity(beyond.output, 'f').rest).toBe(`${before}\n`)
    }
  })

  it('report a FIFO and a directory without opening them, and a missing path by status', async () => {
    await new Promise((done) => execFile('mkfifo', [join(dir, 'pipe')], done))
    const pipe = await runLocal(INSPECT, [join(dir, 'pipe'), '100'])
    expect(pipe.exitCode).toBe(0)
    expect(parseStatLine(parseIdentity(pipe.output, 'pipe').rest, 'pipe').type).toBe('other')
    expect(parseStatLine(parseIdentity((await runLocal(INSPECT, [dir, '100'])).output, 'd').rest, 'd').type).toBe('directory')
    const missing = await runLocal(INSPECT, [join(dir, 'missing'), '100'])
    expect(missing.exitCode).toBe(STATUS.ABSENT)
    expect(parseIdentity(missing.output, 'm')).toEqual({ identity: { key: join(dir, 'missing'), parent: dir }, rest: '' })
  })
})

describe('PUBLISH inline', () => {
  const inline = (mode: string, target: string, expected: string, bytes: Uint8Array, path = target) =>
    runLocal(PUBLISH, [mode, target, join(dirname(target), `.dsh-stage.${'0'.repeat(30)}ff`, 'x'), expected, path, 'inline', Buffer.from(bytes).toString('base64')])

  it('writes every byte value itself, making the missing directories, and prints the identity and the new stat line', async () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i)
    const target = join(dir, 'a', 'b', 'new.bin')
    const result = await inline('create', target, '', bytes)
    expect(result.exitCode).toBe(0)
    const { identity, rest } = parseIdentity(result.output, 'new')
    expect(identity).toEqual({ key: target, parent: join(dir, 'a', 'b') })
    expect(parseStatLine(rest, 'new')).toMatchObject({ type: 'file', size: 256 })
    expect(new Uint8Array(await readFile(target))).toEqual(bytes)
    expect(await readdir(join(dir, 'a', 'b'))).toEqual(['new.bin'])
  })

  it('refuses a path under a file as NOT_DIRECTORY and creates nothing', async () => {
    await writeFile(join(dir, 'f'), 'x')
    expect((await inline('create', join(dir, 'f', 'sub', 'new.txt'), '', Uint8Array.of(1))).exitCode).toBe(STATUS.NOT_DIRECTORY)
    expect(await readdir(dir)).toEqual(['f'])
  })

  it('refuses as MOVED a replacement whose path now leads to another file, and leaves both alone', async () => {
    await writeFile(join(dir, 'one'), 'one')
    await writeFile(join(dir, 'two'), 'two')
    await symlink('two', join(dir, 'link'))
    const version = parseStatLine((await runLocal(STAT, [join(dir, 'one')])).output, 'one').version
    const result = await inline('replace', join(dir, 'one'), version, Buffer.from('new'), join(dir, 'link'))
    expect(result.exitCode).toBe(STATUS.MOVED)
    expect(parseIdentity(result.output, 'link').identity.key).toBe(join(dir, 'two'))
    expect([await readFile(join(dir, 'one'), 'utf8'), await readFile(join(dir, 'two'), 'utf8')]).toEqual(['one', 'two'])
    expect((await readdir(dir)).sort()).toEqual(['link', 'one', 'two'])
  })

  it('reports a symlink found where a create expected nothing as what it leads to', async () => {
    await writeFile(join(dir, 'real'), 'theirs')
    await symlink('real', join(dir, 'link'))
    await symlink('nowhere', join(dir, 'dangling'))
    // The key was named from the directory alone (`<dir>/link`), as `resolveForMutation` may.
    expect((await inline('create', join(dir, 'link'), '', Buffer.from('mine'))).exitCode).toBe(STATUS.EXISTS)
    expect((await inline('create', join(dir, 'dangling'), '', Buffer.from('mine'))).exitCode).toBe(STATUS.NOT_REGULAR)
    expect(await readFile(join(dir, 'real'), 'utf8')).toBe('theirs')
  })
})

describe('PUBLISH create', () => {
  it('links the staged file in place and removes the staging directory', async () => {
    const stage = await staged('new.txt', 'mine')
    const result = await runLocal(PUBLISH, ['create', join(dir, 'new.txt'), stage, ''])
    expect(result.exitCode).toBe(0)
    expect(await readFile(join(dir, 'new.txt'), 'utf8')).toBe('mine')
    expect((await stat(join(dir, 'new.txt'))).nlink).toBe(1)
    expect(await readdir(dir)).toEqual(['new.txt'])
  })

  it('never replaces what is already there, and says what it is', async () => {
    await writeFile(join(dir, 'file'), 'theirs')
    await mkdir(join(dir, 'directory'))
    await symlink('nowhere', join(dir, 'dangling'))
    for (const [name, status] of [['file', STATUS.EXISTS], ['directory', STATUS.NOT_REGULAR], ['dangling', STATUS.NOT_REGULAR]] as const) {
      const stage = await staged(name, 'mine')
      expect((await runLocal(PUBLISH, ['create', join(dir, name), stage, ''])).exitCode).toBe(status)
    }
    expect(await readFile(join(dir, 'file'), 'utf8')).toBe('theirs')
    expect((await readdir(dir)).sort()).toEqual(['dangling', 'directory', 'file'])
  })

  it('reclaims staging directories abandoned more than an hour ago, and only those', async () => {
    const old = new Date(Date.now() - 2 * 3600_000)
    const ours = (hex: string) => `.dsh-stage.${hex.repeat(32)}`
    // Ours and abandoned: empty, or holding the one uploaded file.
    await mkdir(join(dir, ours('a')))
    await mkdir(join(dir, ours('c')))
    await writeFile(join(dir, ours('c'), 'upload.bin'), 'x')
    // Ours but recent: a writer in flight.
    await mkdir(join(dir, ours('b')))
    // Users' entries, as old: a prefix alone, a look-alike of the wrong length or case, a file with
    // our exact name, and one of our names holding what an upload never leaves (a directory).
    const users = ['.dsh-stage-notes', '.dsh-stage.old', `.dsh-stage.${'a'.repeat(31)}`, `.dsh-stage.${'A'.repeat(32)}`, ours('d'), ours('e')]
    await mkdir(join(dir, '.dsh-stage-notes'))
    await writeFile(join(dir, '.dsh-stage-notes', 'keep.md'), 'mine')
    await mkdir(join(dir, '.dsh-stage.old'))
    await mkdir(join(dir, `.dsh-stage.${'a'.repeat(31)}`))
    await mkdir(join(dir, `.dsh-stage.${'A'.repeat(32)}`))
    await writeFile(join(dir, ours('d')), 'a file, not a staging directory')
    await mkdir(join(dir, ours('e'), 'sub'), { recursive: true })
    for (const name of [ours('a'), ours('c'), ...users]) await utimes(join(dir, name), old, old)
    const stage = await staged('new.txt', 'x')
    await runLocal(PUBLISH, ['create', join(dir, 'new.txt'), stage, ''])
    expect((await readdir(dir)).sort()).toEqual([ours('b'), ...users, 'new.txt'].sort())
    expect(await readFile(join(dir, '.dsh-stage-notes', 'keep.md'), 'utf8')).toBe('mine')
  })
})

describe('PUBLISH replace', () => {
  it('swaps only at the expected version and keeps the file mode', async () => {
    await writeFile(join(dir, 'f'), 'old')
    await chmod(join(dir, 'f'), 0o640)
    const version = parseStatLine((await runLocal(STAT, [join(dir, 'f')])).output, 'f').version
    const wrong = await staged('f', 'wrong')
    expect((await runLocal(PUBLISH, ['replace', join(dir, 'f'), wrong, `${version}0`])).exitCode).toBe(STATUS.STALE)
    expect(await readFile(join(dir, 'f'), 'utf8')).toBe('old')
    const right = await staged('f', 'new')
    expect((await runLocal(PUBLISH, ['replace', join(dir, 'f'), right, version])).exitCode).toBe(0)
    expect(await readFile(join(dir, 'f'), 'utf8')).toBe('new')
    expect((await stat(join(dir, 'f'))).mode & 0o777).toBe(0o640)
    expect(await readdir(dir)).toEqual(['f'])
  })

  it('refuses a file without any write bit (for root too) and leaves it alone', async () => {
    await writeFile(join(dir, 'f'), 'old')
    await chmod(join(dir, 'f'), 0o444)
    const version = parseStatLine((await runLocal(STAT, [join(dir, 'f')])).output, 'f').version
    const stage = await staged('f', 'new')
    expect((await runLocal(PUBLISH, ['replace', join(dir, 'f'), stage, version])).exitCode).toBe(STATUS.READ_ONLY)
    expect(await readFile(join(dir, 'f'), 'utf8')).toBe('old')
    expect(await readdir(dir)).toEqual(['f'])
  })

  it.skipIf(!hasSetfacl)('copies the POSIX ACL and extended attributes to the replacement [needs setfacl, setfattr]', async () => {
    const path = join(dir, 'f')
    await writeFile(path, 'old')
    await exec('setfacl', ['-m', 'u:65534:rw,g::-,m::rw', path])
    await exec('setfattr', ['-n', 'user.origin', '-v', 'kept', path])
    const acl = (await exec('getfacl', ['-cp', path])).stdout
    const version = parseStatLine((await runLocal(STAT, [path])).output, 'f').version
    const stage = await staged('f', 'new')
    expect((await runLocal(PUBLISH, ['replace', path, stage, version])).exitCode).toBe(0)
    expect(await readFile(path, 'utf8')).toBe('new')
    expect((await exec('getfacl', ['-cp', path])).stdout).toBe(acl)
    expect((await exec('getfattr', ['--only-values', '-n', 'user.origin', path])).stdout).toBe('kept')
  })

  it.runIf(canDrop)('as another user, refuses a file it cannot write or that is not its own, and keeps a group it is in', async () => {
    await chmod(dir, 0o777)
    const cases = [
      ['root-ro', 0, 0, 0o644, '', STATUS.READ_ONLY],
      ['root-rw', 0, 0, 0o666, '', STATUS.NOT_OWNER],
      ['foreign-group', 65534, 0, 0o640, '', STATUS.NOT_OWNER],
      ['team', 65534, 100, 0o640, '100', 0],
    ] as const
    for (const [name, uid, gid, mode, groups, status] of cases) {
      const path = join(dir, name)
      await writeFile(path, 'old')
      await chown(path, uid, gid)
      await chmod(path, mode)
      const version = parseStatLine((await runLocal(STAT, [path])).output, name).version
      const stage = await staged(name, 'new')
      await chown(dirname(stage), 65534, 65534)
      await chown(stage, 65534, 65534)
      expect((await runLocal(PUBLISH, ['replace', path, stage, version], ['--reuid=65534', '--regid=65534', groups === '' ? '--clear-groups' : `--groups=${groups}`])).exitCode, name).toBe(status)
      const after = await stat(path)
      expect([await readFile(path, 'utf8'), after.uid, after.gid, after.mode & 0o7777], name).toEqual([status === 0 ? 'new' : 'old', uid, gid, mode])
    }
  })

  it.runIf(process.getuid?.() === 0)('refuses a file that is a mount point as MOUNTED and leaves both files alone', async (ctx) => {
    const source = join(dir, 'source')
    const point = join(dir, 'point')
    await writeFile(source, 'mounted')
    await writeFile(point, 'under')
    try {
      await exec('mount', ['--bind', source, point])
    } catch {
      return ctx.skip('mount --bind is not permitted here')
    }
    try {
      const version = parseStatLine((await runLocal(STAT, [point])).output, 'point').version
      const stage = await staged('point', 'new')
      expect((await runLocal(PUBLISH, ['replace', point, stage, version])).exitCode).toBe(STATUS.MOUNTED)
      expect(await readFile(point, 'utf8')).toBe('mounted')
    } finally {
      await exec('umount', [point])
    }
    expect(await readFile(point, 'utf8')).toBe('under')
  })

  it('never recreates a file that disappeared', async () => {
    const stage = await staged('gone', 'x')
    expect((await runLocal(PUBLISH, ['replace', join(dir, 'gone'), stage, '1:2:3:4.0:5.0'])).exitCode).toBe(STATUS.STALE)
    expect(await readdir(dir)).toEqual([])
  })
})

describe('LIST', () => {
  it('hides staging directories of writers in flight, and only those', async () => {
    await staged('x', 'x')
    await writeFile(join(dir, 'visible'), 'v')
    await mkdir(join(dir, '.dsh-stage-notes'))
    await writeFile(join(dir, `.dsh-stage.${'f'.repeat(32)}`), 'a file with our name')
    const result = await runLocal(LIST, [dir])
    expect(result.exitCode).toBe(0)
    expect(result.output).toContain('./visible')
    expect(result.output).not.toContain(STAGE_DIR)
    expect(result.output).toContain('./.dsh-stage-notes')
    expect(result.output).toContain(`./.dsh-stage.${'f'.repeat(32)}`)
    expect(result.output.startsWith('N3\0')).toBe(true)
  })

  it('stats only the first names up to the limit, counts them all, and can leave hidden names out', async () => {
    for (const name of ['c', 'a', '.h', 'b']) await writeFile(join(dir, name), name)
    await symlink('a', join(dir, 'd-link'))
    const cut = await runLocal(LIST, [dir, '2', '1'])
    expect(cut.exitCode).toBe(0)
    expect(cut.output.split('\0').filter((record) => /^[NEL]/.test(record)).map((record) => record.replace(/^E\S+ \S+ \S+ /, 'E '))).toEqual(['N5', 'E ./.h', 'E ./a'])
    const visible = await runLocal(LIST, [dir, '', '0'])
    expect(visible.output.split('\0').filter((record) => record !== '').map((record) => record.replace(/^E\S+ \S+ \S+ /, 'E '))).toEqual(['N4', 'E ./a', 'E ./b', 'E ./c', 'E ./d-link', 'Ld-link', join(dir, 'a')])
  })
})
