// Program: a course (qualification, skill set, accredited course; AVETMISS 8.0 NAT00030A), and
// ProgramOffering: a run of a program that program enrolments point to (new; no AVETMISS ancestor).
import Type from 'typebox'
import { DateString, Optional, Strict, StringEnum, Uuid4 } from '../../platform/http/types.ts'
import {
  occupationCodePattern,
  programFieldOfEducationPattern,
  programLevelsOfEducation,
  programRecognitions,
} from './code-lists.ts'
import { Hours, Text, commonFields, resourceOptions } from './common.schemas.ts'

export const Program = Strict(
  {
    programUID: Uuid4({ description: 'permanent client-generated identifier of this program (UUID version 4)' }),
    programIdentifier: Text(
      10,
      'national code of the qualification, skill set or course, e.g. BSB40120 (AVETMISS program identifier, 10)',
    ),
    programName: Text(100, 'name of the program (AVETMISS program name, 100)'),
    nominalHours: Hours('provider-defined nominal hours of the program (AVETMISS nominal hours)'),
    programRecognition: Optional(
      StringEnum(programRecognitions, {
        description: 'how the program is recognised (AVETMISS program recognition identifier)',
      }),
    ),
    programLevelOfEducation: Optional(
      StringEnum(programLevelsOfEducation, {
        description: 'ASCED level of the program (AVETMISS program level of education identifier)',
      }),
    ),
    programFieldOfEducation: Optional(
      Type.String({
        pattern: programFieldOfEducationPattern,
        description: 'ASCED field of education, 4 digits (AVETMISS program field of education identifier)',
      }),
    ),
    occupationCode: Optional(
      Type.String({
        pattern: occupationCodePattern,
        description: 'occupation the program prepares for, ANZSCO 6 digits (AVETMISS ANZSCO identifier)',
      }),
    ),
    vocationalTrainingIndicator: Type.Boolean({
      description: 'whether the program is vocational education and training (AVETMISS VET flag)',
    }),
    ...commonFields,
  },
  resourceOptions('a course: qualification, skill set or accredited course (AVETMISS NAT00030A)'),
)

export const ProgramOffering = Strict(
  {
    programOfferingUID: Uuid4({
      description: 'permanent client-generated identifier of this program offering (UUID version 4)',
    }),
    programUID: Uuid4({ description: 'the program offered (references a Program)' }),
    programOfferingIdentifier: Optional(Text(50, "the RTO's own code for this run of the program")),
    programOfferingName: Optional(Text(100, 'name of this run of the program, e.g. intake and campus')),
    startDate: Optional(DateString({ description: 'first day of this run of the program' })),
    endDate: Optional(DateString({ description: 'last day of this run of the program' })),
    deliveryLocationUID: Optional(Uuid4({ description: 'main location of this run (references a DeliveryLocation)' })),
    ...commonFields,
  },
  resourceOptions('a run of a program, linking the program to its program enrolments'),
)
