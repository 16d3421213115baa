// NAT files are plain text, in practice ASCII, UTF-8 or a Windows code page.

const utf8 = new TextDecoder('utf-8', { fatal: true })
const windows1252 = new TextDecoder('windows-1252')

/**
 * Bytes to text: UTF-8 when the bytes are valid UTF-8 (ASCII is), Windows-1252 otherwise, so that a
 * file from a Windows system still reads one character a byte and its columns stay where they were.
 * A byte-order mark is dropped.
 */
export function decodeNatBytes(bytes: Uint8Array): string {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    text = windows1252.decode(bytes)
  }
  return text.startsWith('\uFEFF') ? text.slice(1) : text
}
