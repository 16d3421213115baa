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
  const actions = new Map<string, string>()
  for (const finding of findings) {
    const rule = finding.rule ?? (finding.stage === 'organisation' ? STAGE_NAMES.organisation : undefined)
    if (rule && finding.correctiveAction && !actions.has(rule)) actions.set(rule, finding.correctiveAction)
  }
  if (actions.size > 0) {
    output.say()
    output.say('Corrective actions:')
    for (const [rule, action] of actions) output.say(`  ${rule}: ${action}`)
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
