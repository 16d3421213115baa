import { alphanumeric, date, numeric } from '../layout.ts'

/**
 * NAT00120, Training activity: one record per subject enrolment at a delivery location. The
 * national part ends at 111 (school type); positions 112 to 157 are collected by state training
 * authorities, and the predominant delivery mode closes the record at 158.
 */
export const NAT00120 = {
  fileId: 'NAT00120',
  title: 'Training activity',
  recordLength: 158,
  fields: [
    alphanumeric('trainingOrganisationIdentifier', 'Training organisation identifier', 1, 10, 'required'),
    alphanumeric(
      'deliveryLocationIdentifier',
      'Training organisation delivery location identifier',
      11,
      10,
      'required',
    ),
    alphanumeric('clientIdentifier', 'Client identifier', 21, 10, 'required'),
    alphanumeric('subjectIdentifier', 'Subject identifier', 31, 12, 'required'),
    // Blank for a subject studied on its own, outside any program.
    alphanumeric('programIdentifier', 'Program identifier', 43, 10, 'blank allowed'),
    date('activityStartDate', 'Activity start date', 53, 'required'),
    date('activityEndDate', 'Activity end date', 61, 'required'),
    alphanumeric('deliveryModeIdentifier', 'Delivery mode identifier', 69, 3, 'required'),
    numeric('outcomeIdentifierNational', 'Outcome identifier - national', 72, 2, 'required'),
    alphanumeric('fundingSourceNational', 'Funding source - national', 74, 2, 'required'),
    alphanumeric('commencingProgramIdentifier', 'Commencing program identifier', 76, 1, 'required'),
    alphanumeric('trainingContractIdentifier', 'Training contract identifier', 77, 10, 'blank allowed'),
    alphanumeric('clientIdentifierApprenticeships', 'Client identifier - apprenticeships', 87, 10, 'blank allowed'),
    alphanumeric('studyReasonIdentifier', 'Study reason identifier', 97, 2, 'blank allowed'),
    alphanumeric('vetInSchoolsFlag', 'VET in schools flag', 99, 1, 'required'),
    alphanumeric('specificFundingIdentifier', 'Specific funding identifier', 100, 10, 'blank allowed'),
    alphanumeric('schoolTypeIdentifier', 'School type identifier', 110, 2, 'blank allowed'),
    alphanumeric(
      'outcomeIdentifierTrainingOrganisation',
      'Outcome identifier - training organisation',
      112,
      3,
      'blank allowed',
    ),
    alphanumeric(
      'fundingSourceStateTrainingAuthority',
      'Funding source - state training authority',
      115,
      3,
      'blank allowed',
    ),
    numeric('clientTuitionFee', 'Client tuition fee', 118, 5, 'blank allowed'),
    alphanumeric(
      'feeExemptionConcessionTypeIdentifier',
      'Fee exemption/concession type identifier',
      123,
      2,
      'blank allowed',
    ),
    alphanumeric('purchasingContractIdentifier', 'Purchasing contract identifier', 125, 12, 'blank allowed'),
    alphanumeric(
      'purchasingContractScheduleIdentifier',
      'Purchasing contract schedule identifier',
      137,
      3,
      'blank allowed',
    ),
    numeric('hoursAttended', 'Hours attended', 140, 4, 'blank allowed'),
    alphanumeric('associatedCourseIdentifier', 'Associated course identifier', 144, 10, 'blank allowed'),
    numeric('scheduledHours', 'Scheduled hours', 154, 4, 'blank allowed'),
    alphanumeric('predominantDeliveryMode', 'Predominant delivery mode', 158, 1, 'blank allowed'),
  ],
} as const
