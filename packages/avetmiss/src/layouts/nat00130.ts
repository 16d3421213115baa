import { alphanumeric, date } from '../layout.ts'

/** NAT00130, Program completed: one record per program a client completed. */
export const NAT00130 = {
  fileId: 'NAT00130',
  title: 'Program completed',
  recordLength: 72,
  fields: [
    alphanumeric('trainingOrganisationIdentifier', 'Training organisation identifier', 1, 10, 'required'),
    alphanumeric('programIdentifier', 'Program identifier', 11, 10, 'required'),
    alphanumeric('clientIdentifier', 'Client identifier', 21, 10, 'required'),
    date('dateProgramCompleted', 'Date program completed', 31, 'required'),
    alphanumeric('issuedFlag', 'Issued flag', 39, 1, 'required'),
    date('parchmentIssueDate', 'Parchment issue date', 40, 'blank allowed'),
    alphanumeric('parchmentNumber', 'Parchment number', 48, 25, 'blank allowed'),
  ],
} as const
