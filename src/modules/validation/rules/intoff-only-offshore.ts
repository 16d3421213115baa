// BRTS01210: INTOFF stands in for a USI only for an offshore international student (domain notes:
// postcode OSPC and state 99, that is Overseas, on the student's address).
import { defineRecordRule, finding } from '../rule.ts'

export default defineRecordRule({
  technicalRuleId: 'BRTS01210',
  ruleId: 'BRDG00019',
  level: 'Error',
  resourceTypes: ['Student'],
  title: 'INTOFF only for an offshore student',
  description:
    "uniqueStudentIdentifier INTOFF is allowed only when the student's permanent address is overseas (postcode OSPC, state Overseas).",
  correctiveAction: "Give the student's USI, or correct the permanent address to the overseas address.",
  check: (student) => {
    if (student.uniqueStudentIdentifier !== 'INTOFF') return []
    const address = student.permanentAddress
    if (address?.postcode === 'OSPC' && address.state === 'Overseas') return []
    return [
      finding(
        ['$.uniqueStudentIdentifier', '$.permanentAddress.postcode', '$.permanentAddress.state'],
        `uniqueStudentIdentifier is INTOFF but the permanent address is not overseas (postcode ${address?.postcode ?? 'not given'}, state ${address?.state ?? 'not given'}).`,
      ),
    ]
  },
})
