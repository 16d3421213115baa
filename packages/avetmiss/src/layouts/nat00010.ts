import { alphanumeric, numeric } from '../layout.ts'

/**
 * NAT00010, Training organisation: one record for the training organisation. Fields from 111 on
 * (type, address) are for organisations not listed on training.gov.au; the contact fields from 269
 * on are collected by state training authorities.
 */
export const NAT00010 = {
  fileId: 'NAT00010',
  title: 'Training organisation',
  recordLength: 448,
  fields: [
    alphanumeric('trainingOrganisationIdentifier', 'Training organisation identifier', 1, 10, 'required'),
    alphanumeric('trainingOrganisationName', 'Training organisation name', 11, 100, 'required'),
    numeric('trainingOrganisationTypeIdentifier', 'Training organisation type identifier', 111, 2, 'blank allowed'),
    alphanumeric('addressFirstLine', 'Address first line', 113, 50, 'blank allowed'),
    alphanumeric('addressSecondLine', 'Address second line', 163, 50, 'blank allowed'),
    alphanumeric(
      'addressSuburbLocalityOrTown',
      'Address location - suburb, locality or town',
      213,
      50,
      'blank allowed',
    ),
    alphanumeric('postcode', 'Postcode', 263, 4, 'blank allowed'),
    numeric('stateIdentifier', 'State identifier', 267, 2, 'blank allowed'),
    alphanumeric('contactName', 'Contact name', 269, 60, 'blank allowed'),
    alphanumeric('telephoneNumber', 'Telephone number', 329, 20, 'blank allowed'),
    alphanumeric('facsimileNumber', 'Facsimile number', 349, 20, 'blank allowed'),
    alphanumeric('emailAddress', 'Email address', 369, 80, 'blank allowed'),
  ],
} as const
