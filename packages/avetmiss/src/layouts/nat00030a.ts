import { alphanumeric, numeric } from '../layout.ts'

/**
 * NAT00030A, Program with its classifications: recognition, level and field of education, ANZSCO
 * occupation and VET flag, which a program not listed on training.gov.au must give itself.
 */
export const NAT00030A = {
  fileId: 'NAT00030A',
  title: 'Program (with classifications)',
  recordLength: 130,
  fields: [
    alphanumeric('programIdentifier', 'Program identifier', 1, 10, 'required'),
    alphanumeric('programName', 'Program name', 11, 100, 'required'),
    numeric('nominalHours', 'Nominal hours', 111, 4, 'required'),
    numeric('programRecognitionIdentifier', 'Program recognition identifier', 115, 2, 'required'),
    numeric('programLevelOfEducationIdentifier', 'Program level of education identifier', 117, 3, 'required'),
    numeric('programFieldOfEducationIdentifier', 'Program field of education identifier', 120, 4, 'required'),
    alphanumeric('anzscoIdentifier', 'ANZSCO identifier', 124, 6, 'blank allowed'),
    alphanumeric('vetFlag', 'VET flag', 130, 1, 'required'),
  ],
} as const
