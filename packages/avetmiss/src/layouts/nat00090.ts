import { alphanumeric } from '../layout.ts'

/** NAT00090, Disability: one record per disability type of a client whose disability flag is Y. */
export const NAT00090 = {
  fileId: 'NAT00090',
  title: 'Disability',
  recordLength: 12,
  fields: [
    alphanumeric('clientIdentifier', 'Client identifier', 1, 10, 'required'),
    alphanumeric('disabilityTypeIdentifier', 'Disability type identifier', 11, 2, 'required'),
  ],
} as const
