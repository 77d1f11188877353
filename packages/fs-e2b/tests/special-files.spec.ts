import type { FileSystem } from '@deepseek-ai/dsh-fs'
import { type Stack, stack } from '@deepseek-ai/dsh-test-kit'
import { execFileSync } from 'node:child_process'
import { readdir, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useEmulatedSandbox } from './support/sandbox'

// What an `other` entry is, told by the E2B provider from the mode bits the sandbox's stat prints,
// through the real e2b SDK against the envd emulator; the tools then name it as the local ones do.
const sandbox = useEmulatedSandbox()
const isRoot = process.getuid?.() === 0
let s: Stack
let dir: string
let fs: FileSystem

beforeEach(async () => {
  s = await stack({ provider: 'e2b', sandboxUrl: sandbox.emulator.url, tools: ['tool-fs'] })
  dir = s.dir
  fs = s.fs
})
afterEach(async () => {
  await s.dispose()
})

const call = async (name: string, args: unknown) => {
  const result = await s.call(name, args)
  return { code: result.error?.code, text: result.content.map((part) => part.text).join('') }
}
const special = async (name: string) => (await fs.stat(await fs.resolve(name)))?.special

describe('special files in an E2B sandbox', () => {
  it('reports a FIFO as fifo in FsInfo.special, and every tool names it a FIFO without blocking', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe')])
    expect(await special('pipe')).toBe('fifo')
    for (const [name, args] of [
      ['read', { file_path: 'pipe' }],
      ['edit', { file_path: 'pipe', old_string: 'a', new_string: 'b' }],
      ['write', { file_path: 'pipe', content: 'x\n' }],
    ] as const) {
      const result = await call(name, args)
      expect(result.code, `${name} ${JSON.stringify(args)}`).toBe('FS_NOT_REGULAR_FILE')
      expect(result.text, `${name} ${JSON.stringify(args)}`).toContain('is a FIFO (named pipe), not a regular file')
    }
  })

  it.runIf(isRoot)('reports a character device as device in FsInfo.special, and the tools name it a device file', async () => {
    execFileSync('mknod', [join(dir, 'null'), 'c', '1', '3'])
    expect(await special('null')).toBe('device')
    const read = await call('read', { file_path: 'null' })
    expect(read.code).toBe('FS_NOT_REGULAR_FILE')
    expect(read.text).toContain('is a device file, not a regular file')
    const edit = await call('edit', { file_path: 'null', old_string: 'a', new_string: 'b' })
    expect(edit.code).toBe('FS_NOT_REGULAR_FILE')
    expect(edit.text).toContain('is a device file, not a regular file')
  })

  it('reports a socket as socket in FsInfo.special', async () => {
    execFileSync('python3', ['-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', join(dir, 'sock')])
    expect(await special('sock')).toBe('socket')
    expect((await call('read', { file_path: 'sock' })).text).toContain('is a socket, not a regular file')
  })

  it('leaves special unset on regular files and directories', async () => {
    await call('write', { file_path: 'a.txt', content: 'x\n' })
    expect(await fs.stat(await fs.resolve('a.txt'))).not.toHaveProperty('special')
    expect(await fs.stat(await fs.resolve('.'))).not.toHaveProperty('special')
  })

  it('reports a dangling symlink as broken-symlink, and the tools call it a broken symbolic link that nothing is created through', async () => {
    await symlink('gone.txt', join(dir, 'link.txt'))
    expect(await special('link.txt')).toBe('broken-symlink')
    const read = await call('read', { file_path: 'link.txt' })
    expect(read.code).toBe('FS_NOT_REGULAR_FILE')
    expect(read.text).toContain('is a broken symbolic link (its target does not exist), not a regular file')
    const write = await call('write', { file_path: 'link.txt', content: 'x\n' })
    expect(write.code).toBe('FS_NOT_REGULAR_FILE')
    expect(write.text).toContain('nothing is created through a broken link')
    expect((await readdir(dir)).sort()).toEqual(['link.txt'])
  })
})
