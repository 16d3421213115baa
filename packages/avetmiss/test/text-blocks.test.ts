// A client file's text kept as blocks of whole lines, let go as their lines are read again
// (text-blocks.ts): every line reads back as the text held it, in any order, whatever its characters
// (ASCII, letters a byte holds, letters it does not), and a block goes with its last line.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { TextBlocks } from '../src/text-blocks.ts'

/** The lines of a text as the reader keeps them: where each starts and how long it is (no line end). */
function linesOf(text: string): { at: number; length: number }[] {
  const lines: { at: number; length: number }[] = []
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start)
    const end = newline === -1 ? text.length : newline
    lines.push({ at: start, length: end - start - (text.charCodeAt(end - 1) === 0x0d ? 1 : 0) })
    start = end + 1
  }
  return lines
}

const TEXTS: Record<string, string> = {
  ascii: ['0001 Smith     John', '0002 Nguyen    Anh', '0003 Brown     Kate', '0004 Lee       Sam'].join('\n'),
  'CRLF, and a last line with no line end': ['0001 Smith', '0002 Jones', '0003 Walker'].join('\r\n'),
  'letters one byte holds (é, ñ)': ['0001 Zoë   Renée', '0002 Muñoz José', '0003 plain text'].join('\n'),
  'letters one byte does not (’ from Windows-1252, 中)': [
    '0001 O’Brien',
    '0002 plain',
    '0003 王 中文',
    '0004 end',
  ].join('\n'),
}

describe('TextBlocks', () => {
  for (const [name, text] of Object.entries(TEXTS)) {
    for (const blockChars of [1, 7, 20, 1 << 18]) {
      it(`reads every line back as the text held it: ${name}, blocks of at least ${blockChars} characters`, () => {
        const lines = linesOf(text)
        const blocks = new TextBlocks(text, (i) => lines[i]!.at, lines.length, blockChars)
        // The last line first, then the others: the chunks' order need not be the file's.
        const read = [...new Set([lines.length - 1, ...lines.keys()])].map((i) => ({
          i,
          line: blocks.read(lines[i]!.at, lines[i]!.length),
        }))
        for (const { i, line } of read) assert.equal(line, text.slice(lines[i]!.at, lines[i]!.at + lines[i]!.length))
        assert.equal(blocks.held, 0)
      })
    }
  }

  it('lets a block go with its last line, and keeps a block some of whose lines are unread', () => {
    const text = ['aaaa', 'bbbb', 'cccc', 'dddd', 'eeee', 'ffff'].join('\n')
    const lines = linesOf(text)
    // At least 8 characters a block, whole lines: "aaaa\nbbbb\n", "cccc\ndddd\n", "eeee\nffff".
    const blocks = new TextBlocks(text, (i) => lines[i]!.at, lines.length, 8)
    assert.equal(blocks.held, 3)
    const read = (i: number) => blocks.read(lines[i]!.at, lines[i]!.length)
    assert.equal(read(0), 'aaaa')
    assert.equal(blocks.held, 3, 'bbbb is not read yet')
    assert.equal(read(1), 'bbbb')
    assert.equal(blocks.held, 2)
    assert.equal(read(5), 'ffff')
    assert.equal(blocks.held, 2, 'eeee is not read yet')
    assert.equal(read(4), 'eeee')
    assert.equal(read(2), 'cccc')
    assert.equal(read(3), 'dddd')
    assert.equal(blocks.held, 0)
    assert.throws(() => read(0), /read once/)
  })

  it('keeps no block for lines that will not be read (a text with no line kept)', () => {
    const blocks = new TextBlocks('skipped line\nanother', () => 0, 0, 4)
    // A block none of whose lines is kept (lines with a problem are not) would be held to the end.
    assert.equal(blocks.held, 0)
  })
})
