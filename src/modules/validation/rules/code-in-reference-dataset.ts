// BRTS01240: every coded value is a record of its reference dataset in force on the enrolment's
// start date where the record has one (a code a later release end-dated stays valid for dates inside
// its validity: records are end-dated, never deleted), and an active record otherwise. The message
// names the dataset checked, so an SMS with a stale code list can see which dataset to synchronise
// (domain notes: users' complaints).
import { resourceTypes, type ResourceType } from '../../../domain/resource-types.ts'
import { defineRecordRule, finding, type Finding } from '../rule.ts'

// Which dataset backs which field. `[]` walks every item of an array.
const address = (name: string) =>
  [
    [`${name}.state`, 'state'],
    [`${name}.country`, 'country'],
  ] as const
const enrolment = [
  ['fundingSourceNational', 'funding-source-national'],
  ['commencingProgram', 'commencing-program'],
  ['studyReason', 'study-reason'],
  ['lifecycle[].studentStatus', 'student-status'],
  ['lifecycle[].studentStatusReason', 'student-status-reason'],
  ['thirdPartyServiceProviders[].participantInvolvementType', 'participant-involvement-type'],
] as const
const common = [['voidedReason', 'voided-reason']] as const

export const CODED_FIELDS: Record<ResourceType, readonly (readonly [string, string])[]> = {
  Student: [
    ['gender', 'gender'],
    ['indigenousStatus', 'indigenous-status'],
    ['highestSchoolLevelCompleted', 'highest-school-level'],
    ['labourForceStatus', 'labour-force-status'],
    ['disabilities[]', 'disability-type'],
    ['priorEducationalAchievements[].priorEducationalAchievement', 'prior-educational-achievement'],
    ['priorEducationalAchievements[].recognition', 'prior-educational-achievement-recognition'],
    ['languageSpokenAtHome', 'language'],
    ['countryOfBirth', 'country'],
    ['surveyAvailability', 'survey-availability'],
    ...address('permanentAddress'),
    ...address('termAddress'),
    ...address('postalAddress'),
    ...common,
  ],
  DeliveryLocation: [...address('address'), ...common],
  Program: [
    ['programRecognition', 'program-recognition'],
    ['programLevelOfEducation', 'program-level-of-education'],
    ...common,
  ],
  ProgramOffering: [...common],
  Subject: [['subjectType', 'subject-type'], ...common],
  SubjectOffering: [...common],
  ProgramEnrolment: [...enrolment, ...common],
  SubjectEnrolment: [
    ...enrolment,
    ['schoolType', 'school-type'],
    ['predominantDeliveryMode', 'predominant-delivery-mode'],
    ['outcome.outcomeIdentifierNational', 'outcome-national'],
    ...common,
  ],
}

/** Every value at a field path, with its concrete access path (`lifecycle[].studentStatus` -> `$.lifecycle[1].studentStatus`). */
export function valuesAt(value: unknown, field: string, path = '$'): { path: string; value: unknown }[] {
  const [head, ...rest] = field.split('.')
  if (head === undefined || value === null || typeof value !== 'object') return []
  const isArray = head.endsWith('[]')
  const name = isArray ? head.slice(0, -2) : head
  const child = (value as Record<string, unknown>)[name]
  if (child === undefined) return []
  const items = isArray
    ? Array.isArray(child)
      ? child.map((item, i) => ({ path: `${path}.${name}[${i}]`, value: item }))
      : []
    : [{ path: `${path}.${name}`, value: child }]
  return rest.length === 0 ? items : items.flatMap((item) => valuesAt(item.value, rest.join('.'), item.path))
}

export default defineRecordRule({
  technicalRuleId: 'BRTS01240',
  ruleId: 'BRDG00022',
  level: 'Error',
  resourceTypes, // every type
  title: 'A coded value is in its reference dataset',
  description:
    "Every coded value (code lists and the country and language classifications) is a record of the reference dataset that backs the field: for enrolments, one in force on the enrolment's start date (a code since end-dated stays valid for dates up to its end); for other records, an active one. The message names the dataset.",
  correctiveAction:
    'Use a code from the current version of the named reference dataset (synchronise it from /vet-provider/v1/reference-data/{dataset}).',
  check: (record, resourceType, { reference }) => {
    const body = record as Record<string, unknown>
    const onDate =
      typeof body.commencementDate === 'string'
        ? body.commencementDate
        : typeof body.activityStartDate === 'string'
          ? body.activityStartDate
          : undefined
    const findings: Finding[] = []
    for (const [field, dataset] of CODED_FIELDS[resourceType]) {
      for (const { path, value } of valuesAt(body, field)) {
        if (typeof value !== 'string' || reference.isValid(dataset, value, onDate)) continue
        findings.push(
          finding(
            [path],
            onDate
              ? `${path.slice(2)} ${value} is not a code of reference dataset ${dataset} in force on ${onDate}.`
              : `${path.slice(2)} ${value} is not an active code of reference dataset ${dataset}.`,
          ),
        )
      }
    }
    return findings
  },
})
