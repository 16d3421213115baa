import { alphanumeric } from '../layout.ts'

/** NAT00085, Client contact details: one record per student, with the postal address and contacts. */
export const NAT00085 = {
  fileId: 'NAT00085',
  title: 'Client contact details',
  recordLength: 557,
  fields: [
    alphanumeric('clientIdentifier', 'Client identifier', 1, 10, 'required'),
    alphanumeric('clientTitle', 'Client title', 11, 4, 'blank allowed'),
    alphanumeric('clientFirstGivenName', 'Client first given name', 15, 40, 'required'),
    alphanumeric('clientFamilyName', 'Client family name', 55, 40, 'required'),
    alphanumeric('addressBuildingPropertyName', 'Address building/property name', 95, 50, 'blank allowed'),
    alphanumeric('addressFlatUnitDetails', 'Address flat/unit details', 145, 30, 'blank allowed'),
    alphanumeric('addressStreetNumber', 'Address street number', 175, 15, 'blank allowed'),
    alphanumeric('addressStreetName', 'Address street name', 190, 70, 'blank allowed'),
    alphanumeric('addressPostalDeliveryBox', 'Address postal delivery box', 260, 22, 'blank allowed'),
    alphanumeric(
      'addressPostalSuburbLocalityOrTown',
      'Address postal - suburb, locality or town',
      282,
      50,
      'blank allowed',
    ),
    alphanumeric('postcode', 'Postcode', 332, 4, 'blank allowed'),
    alphanumeric('stateIdentifier', 'State identifier', 336, 2, 'blank allowed'),
    alphanumeric('telephoneNumberHome', 'Telephone number home', 338, 20, 'blank allowed'),
    alphanumeric('telephoneNumberWork', 'Telephone number work', 358, 20, 'blank allowed'),
    alphanumeric('telephoneNumberMobile', 'Telephone number mobile', 378, 20, 'blank allowed'),
    alphanumeric('emailAddress', 'Email address', 398, 80, 'blank allowed'),
    alphanumeric('emailAddressAlternative', 'Email address - alternative', 478, 80, 'blank allowed'),
  ],
} as const
