// BRTS01230: No_value means the same as null and must not be submitted to mean not applicable or
// unknown (spec: Resources and their fields, Reference lists). Where the record itself shows the value
// is known, No_value is wrong: a state is known from a postcode in a state's ranges (OSPC: Overseas),
// and a year of completing school means the level is known.
import { defineRecordRule, finding, type Finding } from '../rule.ts'
import { statesOfPostcode } from './postcode-agrees-with-state.ts'

const ADDRESSES = ['permanentAddress', 'termAddress', 'postalAddress'] as const

export default defineRecordRule({
  technicalRuleId: 'BRTS01230',
  ruleId: 'BRDG00021',
  level: 'Error',
  resourceTypes: ['Student'],
  title: 'No_value only when the value is not stated',
  description:
    'No_value stands for "not stated". It must not be used where the record shows the value: an address state whose postcode lies in a state\'s postcode ranges (or is OSPC), or a highest school level with the year it was completed.',
  correctiveAction:
    'Replace No_value with the value the record implies, or leave the other field out if it is not known either.',
  check: (student) => {
    const findings: Finding[] = ADDRESSES.flatMap((name) => {
      const address = student[name]
      if (address?.state !== 'No_value') return []
      const known = address.postcode === 'OSPC' ? ['Overseas'] : statesOfPostcode(address.postcode)
      if (known.length === 0) return [] // a postcode such as 0000 says nothing of the state
      return [
        finding(
          [`$.${name}.state`, `$.${name}.postcode`],
          `${name}.state is No_value but postcode ${address.postcode} is in ${known.join(' or ')}.`,
        ),
      ]
    })
    if (student.highestSchoolLevelCompleted === 'No_value' && student.highestSchoolLevelCompletedYear !== undefined) {
      findings.push(
        finding(
          ['$.highestSchoolLevelCompleted', '$.highestSchoolLevelCompletedYear'],
          `highestSchoolLevelCompleted is No_value but highestSchoolLevelCompletedYear is ${student.highestSchoolLevelCompletedYear}.`,
        ),
      )
    }
    return findings
  },
})
