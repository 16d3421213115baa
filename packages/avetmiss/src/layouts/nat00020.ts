import { alphanumeric, numeric } from '../layout.ts'

/** NAT00020, Training organisation delivery location: one record per delivery location. */
export const NAT00020 = {
  fileId: 'NAT00020',
  title: 'Training organisation delivery location',
  recordLength: 180,
  fields: [
    alphanumeric('trainingOrganisationIdentifier', 'Training organisation identifier', 1, 10, 'required'),
    alphanumeric(
      'deliveryLocationIdentifier',
      'Training organisation delivery location identifier',
      11,
      10,
      'required',
    ),
    alphanumeric('deliveryLocationName', 'Training organisation delivery location name', 21, 100, 'required'),
    alphanumeric('postcode', 'Postcode', 121, 4, 'required'),
    numeric('stateIdentifier', 'State identifier', 125, 2, 'required'),
    alphanumeric('addressSuburbLocalityOrTown', 'Address location - suburb, locality or town', 127, 50, 'required'),
    alphanumeric('countryIdentifier', 'Country identifier', 177, 4, 'required'),
  ],
} as const
