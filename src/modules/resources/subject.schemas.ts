// Subject: a unit of competency or module (AVETMISS 8.0 NAT00060), and SubjectOffering: a run of a
// subject that subject enrolments point to (new; no AVETMISS ancestor).
import Type from 'typebox'
import { DateString, Optional, Strict, StringEnum, Uuid4 } from '../../platform/http/types.ts'
import { subjectFieldOfEducationPattern, subjectTypes } from './code-lists.ts'
import { Hours, Text, commonFields, resourceOptions } from './common.schemas.ts'

export const Subject = Strict(
  {
    subjectUID: Uuid4({ description: 'permanent client-generated identifier of this subject (UUID version 4)' }),
    subjectIdentifier: Text(
      12,
      'national code of the unit or module, e.g. BSBCRT411 (AVETMISS subject identifier, 12)',
    ),
    subjectName: Text(100, 'name of the subject (AVETMISS subject name, 100)'),
    subjectType: Optional(
      StringEnum(subjectTypes, { description: 'unit of competency or module (AVETMISS subject flag)' }),
    ),
    subjectFieldOfEducation: Optional(
      Type.String({
        pattern: subjectFieldOfEducationPattern,
        description: 'ASCED field of education, 6 digits (AVETMISS subject field of education identifier)',
      }),
    ),
    nominalHours: Hours('provider-defined nominal hours of the subject (AVETMISS nominal hours)'),
    vocationalTrainingIndicator: Type.Boolean({
      description: 'whether the subject is vocational education and training (AVETMISS VET flag)',
    }),
    ...commonFields,
  },
  resourceOptions('a subject: unit of competency or module (AVETMISS NAT00060)'),
)

export const SubjectOffering = Strict(
  {
    subjectOfferingUID: Uuid4({
      description: 'permanent client-generated identifier of this subject offering (UUID version 4)',
    }),
    subjectUID: Uuid4({ description: 'the subject offered (references a Subject)' }),
    programOfferingUID: Optional(
      Uuid4({ description: 'the program offering this run belongs to, if any (references a ProgramOffering)' }),
    ),
    subjectOfferingIdentifier: Optional(Text(50, "the RTO's own code for this run of the subject")),
    subjectOfferingName: Optional(Text(100, 'name of this run of the subject, e.g. intake and campus')),
    startDate: Optional(DateString({ description: 'first day of this run of the subject' })),
    endDate: Optional(DateString({ description: 'last day of this run of the subject' })),
    deliveryLocationUID: Optional(Uuid4({ description: 'main location of this run (references a DeliveryLocation)' })),
    ...commonFields,
  },
  resourceOptions('a run of a subject, linking the subject to its subject enrolments'),
)
