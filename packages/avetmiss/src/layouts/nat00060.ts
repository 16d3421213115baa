import { alphanumeric, numeric } from '../layout.ts'

/** NAT00060, Subject: one record per unit of competency or module. */
export const NAT00060 = {
  fileId: 'NAT00060',
  title: 'Subject',
  recordLength: 123,
  fields: [
    alphanumeric('subjectIdentifier', 'Subject identifier', 1, 12, 'required'),
    alphanumeric('subjectName', 'Subject name', 13, 100, 'required'),
    // Blank for subjects listed on training.gov.au, whose field of education comes from there.
    alphanumeric('subjectFieldOfEducationIdentifier', 'Subject field of education identifier', 113, 6, 'blank allowed'),
    alphanumeric('vetFlag', 'VET flag', 119, 1, 'required'),
    numeric('nominalHours', 'Nominal hours', 120, 4, 'required'),
  ],
} as const
