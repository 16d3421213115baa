// Validation faults planted in a generated NAT file set, for tests that need a batch made by a NAT
// import to fail a business rule at a known NAT place.
// By path, not by name: the test runner does not resolve @vetrs/avetmiss to its sources.
import { NAT_LAYOUTS, type NatEntry, readNatEntries } from '../../packages/avetmiss/src/index.ts'

/**
 * The set with the last character of the first client's USI changed: the USI's check character no
 * longer matches, so validation fails rule BRTS01200 on that student, at the returned NAT00080 line.
 */
export function withBadUsi(entries: NatEntry[]): { entries: NatEntry[]; line: number } {
  const read = readNatEntries(entries)
  const client = read.records.NAT00080.find((record) => record.values.uniqueStudentIdentifier)!
  const usi = NAT_LAYOUTS.NAT00080.fields.find((field) => field.name === 'uniqueStudentIdentifier')!
  return {
    line: client.line,
    entries: entries.map((entry) => {
      if (entry.name !== client.file) return entry
      const lines = Buffer.from(entry.bytes).toString('latin1').split('\r\n')
      const text = lines[client.line - 1]!
      const at = usi.start - 1 + usi.length - 1
      lines[client.line - 1] = `${text.slice(0, at)}${text[at] === 'B' ? 'C' : 'B'}${text.slice(at + 1)}`
      return { name: entry.name, bytes: Buffer.from(lines.join('\r\n'), 'latin1') }
    }),
  }
}
