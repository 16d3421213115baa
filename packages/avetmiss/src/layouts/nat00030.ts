import { alphanumeric, numeric } from '../layout.ts'

/**
 * NAT00030, Program: one record per qualification, course or skill set, for programs listed on
 * training.gov.au (their classifications come from there). NAT00030A carries the same record with
 * the classification fields filled in.
 */
export const NAT00030 = {
  fileId: 'NAT00030',
  title: 'Program',
  recordLength: 114,
  fields: [
    alphanumeric('programIdentifier', 'Program identifier', 1, 10, 'required'),
    alphanumeric('programName', 'Program name', 11, 100, 'required'),
    numeric('nominalHours', 'Nominal hours', 111, 4, 'required'),
  ],
} as const
