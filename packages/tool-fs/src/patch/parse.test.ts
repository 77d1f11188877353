import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_PATCH_CHARS, MAX_PATCH_FILES, parsePatch, PatchSyntaxError } from './parse'

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n')

function syntaxError(input: string): PatchSyntaxError {
  try {
    parsePatch(input)
  } catch (error) {
    if (error instanceof PatchSyntaxError) return error
    throw error
  }
  return expect.fail('the patch was accepted')
}

describe('parsePatch', () => {
  // The cases below are Codex's parser tests, translated: same inputs, same verdicts, our words.
  it('refuses text whose first line is not the Begin marker', () => {
    expect(syntaxError('bad').reason).toMatch(/first line of the patch must be '\*\*\* Begin Patch'/)
  })

  it('refuses a patch whose last line is not the End marker', () => {
    const error = syntaxError('*** Begin Patch\nbad')
    expect(error.reason).toMatch(/last line of the patch must be '\*\*\* End Patch'/)
    expect(error.line).toBe(2)
  })

  it('refuses an Update section without hunks, naming its line', () => {
    const error = syntaxError(patch('*** Update File: test.py'))
    expect(error.line).toBe(2)
    expect(error.reason).toMatch(/Update File section for 'test.py' has no hunk/)
  })

  it('reads an empty patch as no sections', () => {
    expect(parsePatch(patch())).toEqual([])
  })

  it('reads Add, Delete and Update-with-Move sections in order', () => {
    const sections = parsePatch(patch(
      '*** Add File: path/add.py',
      '+abc',
      '+def',
      '*** Delete File: path/delete.py',
      '*** Update File: path/update.py',
      '*** Move to: path/update2.py',
      '@@ def f():',
      '-    pass',
      '+    return 123',
    ))
    expect(sections).toEqual([
      { kind: 'add', path: 'path/add.py', lines: ['abc', 'def'], patchLine: 2 },
      { kind: 'delete', path: 'path/delete.py', patchLine: 5 },
      {
        kind: 'update', path: 'path/update.py', moveTo: 'path/update2.py', patchLine: 6,
        hunks: [{
          anchors: ['def f():'], oldLines: ['    pass'], newLines: ['    return 123'], endOfFile: false, patchLine: 8,
          body: [{ sign: '-', text: '    pass' }, { sign: '+', text: '    return 123' }],
        }],
      },
    ])
  })

  it('lets the first hunk of a section omit its @@ line, and no later one', () => {
    const [section] = parsePatch(patch('*** Update File: file2.py', ' import foo', '+bar'))
    expect(section).toMatchObject({ kind: 'update', hunks: [{ anchors: [], oldLines: ['import foo'], newLines: ['import foo', 'bar'] }] })
    const error = syntaxError(patch('*** Update File: f', '@@', ' a', '*** End of File', ' b', '+c'))
    expect(error.reason).toMatch(/must start with an @@ line/)
  })

  it('refuses an @@ line with no hunk lines after it', () => {
    expect(syntaxError(patch('*** Update File: f', '@@')).reason).toMatch(/hunk has no lines/)
  })

  it('refuses a hunk line without a prefix, naming the line', () => {
    const error = syntaxError(patch('*** Update File: f', '@@', ' keep', 'bad'))
    expect(error.line).toBe(5)
    expect(error.reason).toMatch(/'bad' is not a hunk line/)
  })

  it('refuses an Add File line without its +, naming the section', () => {
    const error = syntaxError(patch('*** Add File: a.txt', '+one', 'two'))
    expect(error.line).toBe(4)
    expect(error.reason).toBe("'two' is in the Add File section for 'a.txt', whose every line starts with '+'")
  })

  it('refuses a stray line between sections', () => {
    expect(syntaxError(patch('*** Frobnicate File: x')).reason).toMatch(/is not a section header/)
  })

  it('reads an empty line inside a hunk as an empty context line', () => {
    const [section] = parsePatch(patch('*** Update File: f', '@@', ' a', '', '-b', '+c'))
    expect(section).toMatchObject({ hunks: [{ oldLines: ['a', '', 'b'], newLines: ['a', '', 'c'] }] })
  })

  it('marks a hunk closed by End of File, and starts the next hunk at the next @@', () => {
    const [section] = parsePatch(patch('*** Update File: f', '@@ one', '-a', '+b', '@@', ' x', '+y', '*** End of File'))
    expect(section).toMatchObject({ hunks: [{ anchors: ['one'], endOfFile: false }, { anchors: [], endOfFile: true, oldLines: ['x'], newLines: ['x', 'y'] }] })
  })

  it('stacks consecutive @@ anchors, keeping an anchor\'s indentation', () => {
    const [section] = parsePatch(patch('*** Update File: f', '@@ class A', '@@     def m():', '-        pass', '+        return 1'))
    expect(section).toMatchObject({ hunks: [{ anchors: ['class A', '    def m():'] }] })
  })

  it('accepts an Update with a Move and no hunk (a pure move), and an Add with no lines (an empty file)', () => {
    expect(parsePatch(patch('*** Update File: a', '*** Move to: b'))).toEqual([{ kind: 'update', path: 'a', moveTo: 'b', hunks: [], patchLine: 2 }])
    expect(parsePatch(patch('*** Add File: empty.txt'))).toEqual([{ kind: 'add', path: 'empty.txt', lines: [], patchLine: 2 }])
  })

  it('ignores whitespace around the patch and around its markers', () => {
    const sections = parsePatch(`\n\n  *** Begin Patch  \n*** Add File: a.txt\n+hi\n  *** End Patch \n\n`)
    expect(sections).toEqual([{ kind: 'add', path: 'a.txt', lines: ['hi'], patchLine: 4 }])
  })

  it('takes off the heredoc wrappers models emit: <<EOF, <<\'EOF\', <<"EOF", and apply_patch <<\'PATCH\'', () => {
    const inner = patch('*** Add File: a.txt', '+hi')
    for (const [open, close] of [['<<EOF', 'EOF'], ["<<'EOF'", 'EOF'], ['<<"EOF"', 'EOF'], ["apply_patch <<'PATCH'", 'PATCH']]) {
      expect(parsePatch(`${open}\n${inner}\n${close}\n`), open).toEqual([{ kind: 'add', path: 'a.txt', lines: ['hi'], patchLine: 3 }])
    }
  })

  it('refuses a heredoc whose quotes do not match, as Codex does', () => {
    expect(syntaxError(`<<"EOF'\n${patch('*** Add File: a', '+x')}\nEOF`).reason).toMatch(/first line/)
  })

  it('reads a patch sent with CRLF line breaks like one sent with LF', () => {
    expect(parsePatch(patch('*** Update File: f', '@@', '-a', '+b').replaceAll('\n', '\r\n'))).toEqual(parsePatch(patch('*** Update File: f', '@@', '-a', '+b')))
  })

  it('refuses a patch of more files than the bound, naming the first section past it', () => {
    const sections = Array.from({ length: MAX_PATCH_FILES + 1 }, (_, index) => `*** Delete File: f${index}.txt`)
    const error = syntaxError(patch(...sections))
    expect(error.line).toBe(MAX_PATCH_FILES + 2)
    expect(error.reason).toMatch(/changes 101 files; at most 100/)
  })

  it('refuses a patch above the size bound before reading it', () => {
    expect(syntaxError('x'.repeat(MAX_PATCH_CHARS + 1)).reason).toMatch(/at most/)
  })

  it('never throws anything but PatchSyntaxError, whatever the text', () => {
    const alphabet = fc.constantFrom('*** Begin Patch', '*** End Patch', '*** Add File: a', '*** Update File: a', '*** Delete File: a', '*** Move to: b',
      '@@', '@@ x', ' x', '-x', '+x', '', '*** End of File', 'junk', '<<EOF', 'EOF')
    fc.assert(fc.property(fc.array(alphabet, { maxLength: 12 }), (lines) => {
      try {
        parsePatch(lines.join('\n'))
      } catch (error) {
        expect(error).toBeInstanceOf(PatchSyntaxError)
      }
    }))
  })

  it('gives back the lines of any Add section it was given', () => {
    const line = fc.string().filter((text) => !text.includes('\n') && !text.includes('\r'))
    fc.assert(fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
      const [section] = parsePatch(patch('*** Add File: f.txt', ...lines.map((text) => `+${text}`)))
      expect(section).toEqual({ kind: 'add', path: 'f.txt', lines, patchLine: 2 })
    }))
  })
})
