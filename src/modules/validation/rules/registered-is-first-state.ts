// BRTS01460: Registered is where an enrolment's lifecycle starts (spec: Enrolment lifecycle, "(none)
// -> Registered on upload of a first-time enrolment"), so it can only be the earliest state. A first
// upload need not carry it: an enrolment first reported after it commenced starts its history at
// Commenced and is registered by that upload (docs/decisions.md, "First-time enrolments"). A Warning,
// not an Error: the spec leaves the other moves "not shown", so a later Registered is questioned,
// not refused.
import { defineRecordRule, finding } from '../rule.ts'

export default defineRecordRule({
  technicalRuleId: 'BRTS01460',
  ruleId: 'BRDG00046',
  level: 'Warning',
  resourceTypes: ['ProgramEnrolment', 'SubjectEnrolment'],
  title: 'Registered is the first lifecycle state',
  description:
    'A Registered state is the earliest state of the lifecycle (by studentActivityDate); an enrolment is registered once, when it is first reported.',
  correctiveAction:
    'Remove the later Registered state, or correct its studentActivityDate if the enrolment was registered first.',
  check: (enrolment) => {
    const states = enrolment.lifecycle.map((state, index) => ({ ...state, index }))
    const earliest = states.reduce((first, state) =>
      state.studentActivityDate < first.studentActivityDate ? state : first,
    )
    return states.flatMap((state) =>
      state.studentStatus === 'Registered' &&
      state.index !== earliest.index &&
      state.studentActivityDate > earliest.studentActivityDate
        ? [
            finding(
              [`$.lifecycle[${state.index}].studentStatus`, `$.lifecycle[${state.index}].studentActivityDate`],
              `Registered on ${state.studentActivityDate} follows ${earliest.studentStatus} on ${earliest.studentActivityDate}.`,
            ),
          ]
        : [],
    )
  },
})
