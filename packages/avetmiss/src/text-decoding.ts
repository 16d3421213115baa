// NAT files are plain text, in practice ASCII, UTF-8 or a Windows code page. Bytes that are no such
// text (NUL bytes, UTF-16) are refused, naming the file and line, before anything reads them.

const utf8 = new TextDecoder('utf-8', { fatal: true })
const windows1252 = new TextDecoder('windows-1252')

/**
 * Content a NAT file cannot be: a UTF-16 file, or a NUL byte in a line. `line` is 1-based; the whole
 * set is refused, since the text cannot be read as any of the encodings an SMS writes NAT files in.
 */
export class NatUndecodableError extends Error {
  readonly file: string
  readonly line: number
  constructor(file: string, line: number, message: string) {
    super(`${file} line ${line} ${message}`)
    this.name = 'NatUndecodableError'
    this.file = file
    this.line = line
  }
}

const EXPORT_AS_TEXT =
  'In the SMS, export the NAT files again as plain text (ASCII, UTF-8 or Windows-1252), and import those.'

/** The 1-based line of the byte at `at`. */
function lineOf(bytes: Uint8Array, at: number): number {
  let line = 1
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < at; i = bytes.indexOf(0x0a, i + 1)) line += 1
  return line
}

/**
 * Whether the bytes look like UTF-16 without a byte-order mark: text of ASCII characters written two
 * bytes each has a NUL in every other byte. Judged on the first 64 bytes.
 */
function looksLikeUtf16(bytes: Uint8Array): boolean {
  const sample = Math.min(bytes.length, 64) & ~1
  if (sample < 4) return false
  let even = 0
  let odd = 0
  for (let i = 0; i < sample; i += 2) {
    if (bytes[i] === 0) even += 1
    if (bytes[i + 1] === 0) odd += 1
  }
  const half = sample / 2
  return even * 4 >= half * 3 || odd * 4 >= half * 3
}

/**
 * Refuses bytes that are not text a NAT file is written in: UTF-16 (with a byte-order mark, or
 * NUL-interleaved) or a NUL byte anywhere, as a NatUndecodableError naming the file and line.
 */
export function assertNatText(file: string, bytes: Uint8Array): void {
  const utf16Bom = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)
  if (utf16Bom || looksLikeUtf16(bytes))
    throw new NatUndecodableError(
      file,
      1,
      `is UTF-16 text${utf16Bom ? ' (it starts with a UTF-16 byte-order mark)' : ' (every other byte is NUL)'}: a NAT file is one byte a character. ${EXPORT_AS_TEXT}`,
    )
  const nul = bytes.indexOf(0)
  if (nul !== -1) {
    const lineStart = bytes.lastIndexOf(0x0a, nul) + 1
    throw new NatUndecodableError(
      file,
      lineOf(bytes, nul),
      `holds a NUL byte (character ${nul - lineStart + 1}): a NAT file is text, and no field holds a NUL. ${EXPORT_AS_TEXT}`,
    )
  }
}

/**
 * Bytes to text: UTF-8 when the bytes are valid UTF-8 (ASCII is), Windows-1252 otherwise, so that a
 * file from a Windows system still reads one character a byte and its columns stay where they were.
 * A byte-order mark is dropped. With `file`, bytes that are no such text are refused (assertNatText).
 */
export function decodeNatBytes(bytes: Uint8Array, file?: string): string {
  if (file !== undefined) assertNatText(file, bytes)
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    text = windows1252.decode(bytes)
  }
  return text.startsWith('\uFEFF') ? text.slice(1) : text
}
