// The findings of an import as a person reads them (a table, then each rule's corrective action once)
// and as a spreadsheet reads them (a CSV file, one row per NAT place, every column a script needs).
import { writeFile } from 'node:fs/promises'
import { stringify } from 'csv-stringify/sync'
import type { Output } from '../output.ts'
import { whereOf, type Finding } from './findings.ts'

const STAGE_NAMES = {
  organisation: 'NAT organisation',
  read: 'NAT read',
  map: 'NAT mapping',
  check: 'NAT check',
  upload: 'upload',
  validation: 'validation',
} as const

export function printFindings(output: Output, findings: readonly Finding[]): void {
  output.table(
    findings.map((finding) => ({
      level: finding.level,
      rule: finding.rule ?? STAGE_NAMES[finding.stage],
      where: whereOf(finding),
      // Reader and mapping messages mostly quote the value already.
      message:
        finding.value === undefined || finding.message.includes(finding.value)
          ? finding.message
          : `${finding.message} ("${finding.value}")`,
    })),
    ['level', 'rule', 'where', 'message'],
  )
  // A rule's corrective action is the same for every result, so it is said once, rules first; a read,
  // mapping or check problem's says what to change in the SMS for that record, so each is said at its place.
  const actions = new Map<string, string>()
  const byPlace = new Map<string, string>()
  for (const finding of findings) {
    if (!finding.correctiveAction) continue
    if (finding.stage === 'validation' && finding.rule) {
      if (!actions.has(finding.rule)) actions.set(finding.rule, finding.correctiveAction)
    } else if (!byPlace.has(whereOf(finding))) byPlace.set(whereOf(finding), finding.correctiveAction)
  }
  for (const [where, action] of byPlace) actions.set(where, action)
  if (actions.size > 0) {
    output.say()
    output.say('Corrective actions:')
    for (const [where, action] of actions) output.say(`  ${where}: ${action}`)
  }
}

export const CSV_COLUMNS = [
  'stage',
  'level',
  'rule',
  'file',
  'fileId',
  'line',
  'field',
  'fieldLabel',
  'where',
  'value',
  'record',
  'message',
  'correctiveAction',
  'resourceType',
  'resourceUID',
  'accessPath',
] as const

/** One row per NAT place of each finding (a finding with none, a held record, has one row without a file). */
export function csvRowsOf(findings: readonly Finding[]): Record<(typeof CSV_COLUMNS)[number], string>[] {
  return findings.flatMap((finding) => {
    const common = {
      stage: finding.stage,
      level: finding.level,
      rule: finding.rule ?? '',
      value: finding.value ?? '',
      record: finding.record ?? '',
      message: finding.message,
      correctiveAction: finding.correctiveAction ?? '',
      resourceType: finding.resourceType ?? '',
      resourceUID: finding.resourceUID ?? '',
      accessPath: (finding.accessPath ?? []).join(' '),
    }
    if (finding.nat.length === 0)
      return [{ ...common, file: '', fileId: '', line: '', field: '', fieldLabel: '', where: whereOf(finding) }]
    return finding.nat.map((place) => ({
      ...common,
      file: place.file,
      fileId: place.fileId ?? '',
      line: String(place.line),
      field: place.field ?? '',
      fieldLabel: place.fieldLabel ?? '',
      where: place.text,
    }))
  })
}

export async function writeCsvReport(file: string, findings: readonly Finding[]): Promise<void> {
  await writeFile(file, stringify(csvRowsOf(findings), { header: true, columns: [...CSV_COLUMNS] }))
}
