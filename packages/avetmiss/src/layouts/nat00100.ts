import { alphanumeric } from '../layout.ts'

/**
 * NAT00100, Prior educational achievement: one record per achievement of a client whose prior
 * educational achievement flag is Y. The recognition identifier (A Australian, E Australian
 * equivalent, I international) is the last column; a record without it ends at 13.
 */
export const NAT00100 = {
  fileId: 'NAT00100',
  title: 'Prior educational achievement',
  recordLength: 14,
  fields: [
    alphanumeric('clientIdentifier', 'Client identifier', 1, 10, 'required'),
    alphanumeric(
      'priorEducationalAchievementIdentifier',
      'Prior educational achievement identifier',
      11,
      3,
      'required',
    ),
    alphanumeric(
      'priorEducationalAchievementRecognitionIdentifier',
      'Prior educational achievement recognition identifier',
      14,
      1,
      'blank allowed',
    ),
  ],
} as const
