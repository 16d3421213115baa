// Two collection periods of one RTO's NAT files, as its student management system writes them: the
// second carries only the second period's activity, with continuing students in it. Built from a
// generated set (believable, valid students, locations, programs and subjects), whose activity is
// reshaped into the cases an RTO reports year after year (docs/decisions.md, "NAT imports year after
// year (issue 31)"). The service's clock forbids activity in the future, so the two "years" are two
// periods of 2026 (to 30 June, then from 3 August); a NAT file carries one either way.
import {
  fileSetOf,
  generateNatFileSet,
  type NatFileSet,
  type NatValues,
  readNatEntries,
} from '../../packages/avetmiss/src/index.ts'

type Activity = NatValues<'NAT00120'>

export interface NatPeriods {
  first: NatFileSet
  second: NatFileSet
  /** A program enrolment continued into the second period: a later unit (commencing program 4) and a completion. */
  continuing: { client: string; program: string; newSubject: string }
  /** Withdrawn from every unit of the program in the first period, back in the second. */
  returning: { client: string; program: string }
  /** Not yet started in the first period (to be deferred through the API in between), started in the second. */
  deferred: { client: string; program: string; firstStart: string }
  /** A unit reported not yet started (85) in the first period and with a result in the second: the same enrolment. */
  started: Activity
}

export const SECOND_PERIOD_START = '2026-08-03'
export const SECOND_PERIOD_END = '2026-10-30'

export function natPeriods(options: {
  rtoCode: string
  referenceData: Parameters<typeof generateNatFileSet>[0]['referenceData']
}): NatPeriods {
  const generated = generateNatFileSet({
    activities: 80,
    seed: 'nat-periods',
    year: 2026,
    asOf: '2026-06-30',
    rtoCode: options.rtoCode,
    referenceData: options.referenceData,
  })
  const base = fileSetOf(readNatEntries(generated.entries).records)
  const activities = (base.NAT00120 ?? []).map((line) => ({ ...line }))
  const completed = new Set((base.NAT00130 ?? []).map((c) => `${c.clientIdentifier} ${c.programIdentifier}`))

  // Program enrolments without a completion, one per client, in the order their lines come.
  const groups = new Map<string, Activity[]>()
  for (const line of activities) {
    if (!line.programIdentifier || completed.has(`${line.clientIdentifier} ${line.programIdentifier}`)) continue
    const key = `${line.clientIdentifier} ${line.programIdentifier}`
    groups.set(key, [...(groups.get(key) ?? []), line])
  }
  const clientsInPrograms = new Set(activities.filter((a) => a.programIdentifier).map((a) => a.clientIdentifier))
  const byClient = new Map<string, Activity[]>()
  for (const lines of groups.values()) {
    const client = lines[0]!.clientIdentifier!
    if (!byClient.has(client) && [...groups.values()].filter((g) => g[0]!.clientIdentifier === client).length === 1)
      byClient.set(client, lines)
  }
  const picked = [...byClient.values()]
  if (picked.length < 3) throw new Error(`nat-periods: ${picked.length} program enrolments to reshape, 3 needed`)
  const [continuing, returning, deferred] = picked as [Activity[], Activity[], Activity[]]
  // A unit outside any program, of a client in no program: its enrolment is its own.
  const started = activities.find(
    (a) => !a.programIdentifier && !clientsInPrograms.has(a.clientIdentifier) && a.outcomeIdentifierNational !== '40',
  )
  if (!started) throw new Error('nat-periods: no unit outside a program to reshape')

  const subjects = (base.NAT00060 ?? []).map((s) => s.subjectIdentifier)
  const unused = (lines: Activity[]) => subjects.find((s) => !lines.some((l) => l.subjectIdentifier === s))!

  // First period: as generated, but the returning student withdrew from every unit, and the deferred
  // one had not started any (85, no hours attended) when the program was deferred.
  for (const line of returning) {
    line.outcomeIdentifierNational = '40'
    if (line.activityEndDate! > '2026-06-30') line.activityEndDate = '2026-06-30'
  }
  for (const line of deferred) {
    line.outcomeIdentifierNational = '85'
    delete line.hoursAttended
  }
  started.outcomeIdentifierNational = '85'
  delete started.hoursAttended
  const first: NatFileSet = { ...base, NAT00120: activities }

  // Second period: the continuing student's open units with their results and a later unit (commencing
  // program 4, continuing), then the completion; the returning and deferred students' new units.
  const later = (template: Activity, subject: string, start: string): Activity => ({
    ...template,
    subjectIdentifier: subject,
    activityStartDate: start,
    activityEndDate: SECOND_PERIOD_END,
    outcomeIdentifierNational: '20',
    commencingProgramIdentifier: '4',
    ...(template.scheduledHours ? { hoursAttended: template.scheduledHours } : {}),
  })
  const newSubject = unused(continuing)
  const second: NatFileSet = {
    ...base,
    NAT00120: [
      ...continuing
        .filter((line) => line.outcomeIdentifierNational === '70')
        .map((line) => ({ ...line, outcomeIdentifierNational: '20' })),
      later(continuing[0]!, newSubject, SECOND_PERIOD_START),
      later(returning[0]!, unused(returning), SECOND_PERIOD_START),
      later(deferred[0]!, unused(deferred), '2026-08-10'),
      {
        ...started,
        outcomeIdentifierNational: '20',
        ...(started.scheduledHours ? { hoursAttended: started.scheduledHours } : {}),
      },
    ],
    NAT00130: [
      {
        trainingOrganisationIdentifier: options.rtoCode,
        programIdentifier: continuing[0]!.programIdentifier!,
        clientIdentifier: continuing[0]!.clientIdentifier!,
        dateProgramCompleted: SECOND_PERIOD_END,
        issuedFlag: 'N',
      },
    ],
  }
  const [c, r, d] = [continuing[0]!, returning[0]!, deferred[0]!]
  return {
    first,
    second,
    continuing: { client: c.clientIdentifier!, program: c.programIdentifier!, newSubject },
    returning: { client: r.clientIdentifier!, program: r.programIdentifier! },
    deferred: {
      client: d.clientIdentifier!,
      program: d.programIdentifier!,
      firstStart: deferred.map((l) => l.activityStartDate).sort()[0]!,
    },
    started: { ...started },
  }
}
