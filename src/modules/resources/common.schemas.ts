// Building blocks shared by the eight resource schemas: the common fields every resource carries, the
// rule that a void needs a reason, identifier and name strings with their AVETMISS lengths, and the
// address child objects.
import Type from 'typebox'
import { Optional, Strict, StringEnum } from '../../platform/http/types.ts'
import { countryCodePattern, postcodePattern, states, studentAddressStates, voidedReasons } from './code-lists.ts'

/** Fields common to every top-level resource besides its UID (spec: Resources and their fields). */
export const commonFields = {
  changeTrackingIdentifier: Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'client-defined version of this record, 1 to 255 characters of any text; opaque, never altered, echoed in upload, validation, reconciliation and assessment results',
    }),
  ),
  isVoided: Optional(Type.Boolean({ description: 'true requests that a previously submitted record be voided' })),
  voidedReason: Optional(
    StringEnum(voidedReasons, { description: 'why the record is voided; required when isVoided is true' }),
  ),
}

/** Object options every resource schema gets: its description and "voidedReason is required when isVoided is true". */
export const resourceOptions = (description: string) => ({
  description,
  if: { properties: { isVoided: { const: true } }, required: ['isVoided'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited
  then: { required: ['voidedReason'] },
})

/** A code or identifier of at most `maxLength` characters (the AVETMISS field length, named by the caller). */
export const Text = (maxLength: number, description: string) => Type.String({ minLength: 1, maxLength, description })

/** Hours as AVETMISS carries them: a whole number of at most four digits. */
export const Hours = (description: string) => Type.Integer({ minimum: 0, maximum: 9999, description })

const postcode = Type.String({
  pattern: postcodePattern,
  description: 'postcode: 4 digits, or OSPC for an overseas address',
})
const country = Type.String({
  pattern: countryCodePattern,
  description: 'country, ABS SACC 4-digit code (1101 Australia)',
})

// Street parts of an AVETMISS 8.0 address (NAT00020, NAT00080, NAT00085), with their field lengths.
const streetParts = {
  buildingPropertyName: Optional(Text(50, 'building or property name (AVETMISS: address building/property name, 50)')),
  flatUnitDetails: Optional(Text(30, 'flat or unit details (AVETMISS: address flat/unit details, 30)')),
  streetNumber: Optional(Text(15, 'street number (AVETMISS: address street number, 15)')),
  streetName: Optional(Text(70, 'street name, with street type (AVETMISS: address street name, 70)')),
}
const suburbLocalityOrTown = Text(50, 'suburb, locality or town (AVETMISS: address suburb, locality or town, 50)')

/** A student's permanent (residential) or term address. */
export const StudentAddress = (description: string) =>
  Strict(
    {
      ...streetParts,
      suburbLocalityOrTown,
      postcode,
      state: Optional(
        StringEnum(studentAddressStates, {
          description: 'state or territory; Overseas for an address outside Australia; No_value when not stated',
        }),
      ),
      country: Optional(country),
    },
    { description },
  )

/** A student's postal address: the street parts or a postal delivery box. */
export const PostalAddress = Strict(
  {
    ...streetParts,
    postalDeliveryBox: Optional(
      Text(22, 'postal delivery box, e.g. PO Box 123 (AVETMISS: address postal delivery box, 22)'),
    ),
    suburbLocalityOrTown,
    postcode,
    state: Optional(
      StringEnum(studentAddressStates, {
        description: 'state or territory; Overseas for an address outside Australia; No_value when not stated',
      }),
    ),
    country: Optional(country),
  },
  { description: 'address where the student receives mail' },
)

/** A delivery location's address: where training takes place, so suburb, postcode and state are known. */
export const LocationAddress = Strict(
  {
    ...streetParts,
    suburbLocalityOrTown,
    postcode,
    state: StringEnum(states, {
      description: 'state or territory of the location; Overseas for a location outside Australia',
    }),
    country: Optional(country),
  },
  { description: 'street address of the delivery location (AVETMISS NAT00020)' },
)
