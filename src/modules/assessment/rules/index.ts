// Every data quality assessment rule, in the order an assessment runs them (and the catalogue lists them).
import type { AssessmentRule } from '../assessment-rule.ts'
import programWithoutSubjectActivity from './program-without-subject-activity.ts'
import registeredLongAfterStart from './registered-long-after-start.ts'
import commencementOutsideActivity from './commencement-outside-activity.ts'
import hoursFarFromNominal from './hours-far-from-nominal.ts'
import oneUsiOneStudent from './one-usi-one-student.ts'
import duplicateStudentAcrossClients from './duplicate-student-across-clients.ts'
import completionWithoutAchievement from './completion-without-achievement.ts'
import studentWithoutEnrolment from './student-without-enrolment.ts'
import implausibleAge from './implausible-age.ts'
import endedWithoutOutcome from './ended-without-outcome.ts'
import subjectOutsideProgram from './subject-outside-program.ts'
import commencedUnderCancelledProgram from './commenced-under-cancelled-program.ts'

export const assessmentRules: readonly AssessmentRule[] = [
  programWithoutSubjectActivity,
  registeredLongAfterStart,
  commencementOutsideActivity,
  hoursFarFromNominal,
  oneUsiOneStudent,
  duplicateStudentAcrossClients,
  completionWithoutAchievement,
  studentWithoutEnrolment,
  implausibleAge,
  endedWithoutOutcome,
  subjectOutsideProgram,
  commencedUnderCancelledProgram,
]
