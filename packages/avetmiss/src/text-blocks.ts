// A client file's text held, between its reading and the last chunk that reads its lines again, as
// blocks of whole lines that are let go one by one as their lines are read. The text was one string
// held until the last chunk (at 100,000 activities 33 MB of files, beside the compressed records at
// their fullest: the NAT worker's peak, bench/results.md, nineteenth session). A file written client
// by client, as the chunks read it, is let go as the mapping goes; a file in another order is held
// until its last block's lines are read, at most what the one string held.
//
// A block is a copy of its part of the text, never a slice of it (a slice would keep the whole text),
// in one byte a character where every character fits (a decoded text with one letter outside ASCII
// can be a string of two bytes a character: the bench's Windows-1252 files are), else as a string of
// its own.
import { Buffer } from 'node:buffer'

/** Characters a block holds at least (whole lines): a block this large is its own allocation, freed when collected. */
const TEXT_BLOCK_CHARS = 1 << 18

/** Any character a byte cannot hold. */
const WIDE = /[\u0100-\uffff]/

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The part of a text as a block that holds nothing else: bytes where every character fits in one. */
function blockOf(part: string): Buffer | string {
  if (!WIDE.test(part)) return Buffer.from(part, 'latin1')
  // A text read from a NAT file holds no lone surrogate, so the round trip gives the same characters,
  // in a string that does not refer to the text it came from.
  return decoder.decode(encoder.encode(part))
}

export class TextBlocks {
  /** Where each block starts in the text. */
  readonly #starts: number[] = []
  readonly #blocks: (Buffer | string | undefined)[] = []
  /** Lines of each block not yet read. */
  readonly #unread: Int32Array

  /**
   * Cuts `text` into blocks of whole lines; `lineStarts` are where the lines that will be read start
   * (each read once by `read`), `lineCount` how many there are.
   */
  constructor(text: string, lineStarts: (index: number) => number, lineCount: number, blockChars = TEXT_BLOCK_CHARS) {
    for (let start = 0; start < text.length; ) {
      let end = Math.min(text.length, start + blockChars)
      if (end < text.length) {
        const newline = text.indexOf('\n', end - 1)
        end = newline === -1 ? text.length : newline + 1
      }
      this.#starts.push(start)
      this.#blocks.push(blockOf(text.slice(start, end)))
      start = end
    }
    this.#unread = new Int32Array(this.#blocks.length)
    for (let i = 0; i < lineCount; i++) this.#unread[this.#blockAt(lineStarts(i))]!++
    // Blocks of lines none of which is kept (a line with a problem is not) are not held for nothing.
    for (let index = 0; index < this.#blocks.length; index++)
      if (this.#unread[index] === 0) this.#blocks[index] = undefined
  }

  /** Blocks still held. */
  get held(): number {
    return this.#blocks.filter((block) => block !== undefined).length
  }

  /** The line that starts at `at` and is `length` characters long; its block is let go with its last line. */
  read(at: number, length: number): string {
    const index = this.#blockAt(at)
    const block = this.#blocks[index]
    if (block === undefined) throw new Error(`the text's block at ${at} was let go: a line is read once`)
    const from = at - this.#starts[index]!
    const line =
      typeof block === 'string' ? block.slice(from, from + length) : block.toString('latin1', from, from + length)
    if (--this.#unread[index]! === 0) this.#blocks[index] = undefined
    return line
  }

  /** The block that holds the character at `at`: the last that starts at or before it. */
  #blockAt(at: number): number {
    let low = 0
    let high = this.#starts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (this.#starts[middle]! <= at) low = middle
      else high = middle - 1
    }
    return low
  }
}
