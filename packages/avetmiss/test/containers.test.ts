// A NAT file set arrives as a folder or as a zip; both read to the same records.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { NatZipTooLargeError, readNatFolder, readNatZip } from '../src/index.ts'
import { completeSet, encode } from './support/file-sets.ts'
import { GOLDEN, lineOf } from './support/golden.ts'

const fileText = (lines: readonly string[]) => lines.map((line) => `${line}\r\n`).join('')

describe('reading a folder or a zip', () => {
  let work: string
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'vetrs-avetmiss-'))
  })
  after(async () => {
    await rm(work, { recursive: true, force: true })
  })

  it('reads the NAT files directly in a folder, and ignores its subfolders and other files', async () => {
    const folder = join(work, 'folder')
    await mkdir(join(folder, 'older'), { recursive: true })
    for (const [name, lines] of Object.entries(completeSet({ 'nat00130.txt': [lineOf(GOLDEN.NAT00130)] }))) {
      await writeFile(join(folder, name), fileText(lines ?? []))
    }
    await writeFile(join(folder, 'older', 'NAT00090.txt'), fileText([lineOf(GOLDEN.NAT00090)]))
    await writeFile(join(folder, 'notes.txt'), 'not a NAT file')

    const result = await readNatFolder(folder)
    assert.deepEqual(result.problems, [])
    assert.deepEqual(result.ignoredFiles, ['notes.txt'])
    assert.deepEqual(result.records.NAT00090, [], 'a file in a subfolder is not read')
    assert.equal(result.records.NAT00130[0]!.file, 'nat00130.txt')
    assert.equal(result.records.NAT00120[0]!.values.subjectIdentifier, 'BSBWHS411')
    assert.equal(result.files.length, 8)
  })

  it('reads a zip from its bytes or its path, wherever the files sit inside it', async () => {
    const files: Record<string, Uint8Array> = {}
    for (const [name, lines] of Object.entries(completeSet())) {
      files[`export/2026/${name.toLowerCase()}`] = encode(fileText(lines ?? []))
    }
    files['export/2026/NAT00100'] = encode(fileText([lineOf(GOLDEN.NAT00100)]))
    files['__MACOSX/export/2026/._NAT00120.txt'] = new Uint8Array([0, 5, 22, 7])
    const zip = zipSync(files)
    const path = join(work, 'set.zip')
    await writeFile(path, zip)

    for (const source of [zip, path]) {
      const result = await readNatZip(source)
      assert.deepEqual(result.problems, [])
      assert.deepEqual(result.ignoredFiles, ['__MACOSX/export/2026/._NAT00120.txt'])
      assert.equal(result.records.NAT00120[0]!.file, 'export/2026/nat00120.txt')
      assert.equal(result.records.NAT00100[0]!.values.priorEducationalAchievementIdentifier, '008')
      assert.equal(result.records.NAT00080[0]!.values.dateOfBirth, '2004-02-29')
    }
  })

  it('reports problems in a zip under the file name inside the zip', async () => {
    const files: Record<string, Uint8Array> = {}
    for (const [name, lines] of Object.entries(completeSet())) files[`in/${name}`] = encode(fileText(lines ?? []))
    files['in/NAT00120.txt'] = encode(fileText([lineOf(GOLDEN.NAT00120).replace('03022026', '31022026')]))
    const result = await readNatZip(zipSync(files))
    assert.deepEqual(
      result.problems.map(({ file, line, field, value }) => ({ file, line, field, value })),
      [{ file: 'in/NAT00120.txt', line: 1, field: 'activityStartDate', value: '31022026' }],
    )
  })

  it('refuses bytes that are not a zip, saying so', async () => {
    await assert.rejects(readNatZip(encode('NAT00120 is not a zip')), /Not a zip that can be read/)
  })

  /** A complete set as zip entries, and how many bytes its NAT files hold. */
  const zipEntries = () => {
    const files: Record<string, Uint8Array> = {}
    for (const [name, lines] of Object.entries(completeSet())) files[name] = encode(fileText(lines ?? []))
    return { files, bytes: Object.values(files).reduce((sum, file) => sum + file.length, 0) }
  }
  /** The offset of the central directory header of the entry named `name`. */
  const centralHeaderOf = (zip: Uint8Array, name: string) => {
    const view = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength)
    for (let at = view.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0; ) {
      if (view.toString('latin1', at + 46, at + 46 + view.readUInt16LE(at + 28)) === name) return at
      at = at === 0 ? -1 : view.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at - 1)
    }
    throw new Error(`no ${name} in the zip`)
  }

  it('bounds what the NAT files may hold uncompressed, before inflating any, and the entries a zip may list', async () => {
    const { files, bytes } = zipEntries()
    files['readme.txt'] = new Uint8Array(bytes) // not a NAT file: listed, never inflated, not counted
    const zip = zipSync(files)
    assert.equal((await readNatZip(zip, { maxUncompressedBytes: bytes })).problems.length, 0)
    await assert.rejects(readNatZip(zip, { maxUncompressedBytes: bytes - 1 }), NatZipTooLargeError)
    // 16 MiB of spaces deflate to a few KiB: refused on what the zip states, at once.
    const bomb = zipSync({ ...files, 'NAT00120.txt': new Uint8Array(16 * 1024 * 1024).fill(32) })
    assert.ok(bomb.length < 1024 * 1024)
    await assert.rejects(
      readNatZip(bomb, { maxUncompressedBytes: 1024 * 1024 }),
      /more than 1048576 bytes uncompressed/,
    )
    await assert.rejects(readNatZip(zip, { maxEntries: 3 }), /more than 3 entries/)
  })

  it('refuses a damaged zip: a NAT file whose bytes do not match its CRC-32, or that inflates to another size than stated', async () => {
    const { files } = zipEntries()
    const stored = zipSync(files, { level: 0 })
    const at = Buffer.from(stored).indexOf('BSBWHS411') // a unit identifier, stored as is
    assert.ok(at > 0)
    const flipped = Uint8Array.from(stored)
    flipped[at] = 'X'.charCodeAt(0)
    await assert.rejects(readNatZip(flipped), /NAT\d+\.txt does not match its CRC-32/)

    // A zip stating less than a file holds: the file is cut off at the stated size, and its CRC shows it.
    const deflated = zipSync(files)
    const header = centralHeaderOf(deflated, 'NAT00120.txt')
    const short = Uint8Array.from(deflated)
    const view = new DataView(short.buffer)
    view.setUint32(header + 24, view.getUint32(header + 24, true) - 10, true)
    await assert.rejects(readNatZip(short), /NAT00120\.txt does not match its CRC-32/)
  })
})
