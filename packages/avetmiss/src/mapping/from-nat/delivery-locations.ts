// Delivery locations from NAT00020.
import type { NatRecord, NatRecordSet } from '../../records.ts'
import type { MappedRecordOf } from '../mapped-record.ts'
import { defined } from '../objects.ts'
import { OriginBuilder } from '../origin.ts'
import type { DeliveryLocationRecord } from '../resource-records.ts'
import { checkOrganisation, type ImportContext } from './context.ts'
import { NatFieldReader } from './field-reader.ts'
import { firstByKey } from './grouping.ts'

export function deliveryLocationsFromNat(
  context: ImportContext,
  records: NatRecordSet,
): MappedRecordOf<'DeliveryLocation'>[] {
  const locations = firstByKey(
    context,
    records.NAT00020,
    (row) => row.values.deliveryLocationIdentifier ?? '',
    (id) => `Delivery location ${id}`,
  )
  return [...locations.values()].flatMap((row) => {
    const mapped = deliveryLocationFrom(context, row)
    return mapped ? [mapped] : []
  })
}

/**
 * NAT00020 has no street address (only suburb, postcode, state and country), so the API's street
 * parts are left out. The API requires the state: one that does not translate leaves the location
 * out, reported.
 */
function deliveryLocationFrom(
  context: ImportContext,
  row: NatRecord<'NAT00020'>,
): MappedRecordOf<'DeliveryLocation'> | undefined {
  checkOrganisation(context, row)
  const origin = new OriginBuilder(row)
  const r = new NatFieldReader(context, row, origin)
  const identifier = r.raw('deliveryLocationIdentifier')!
  const uid = context.keys.deliveryLocation(identifier)
  r.from('deliveryLocationUID', 'deliveryLocationIdentifier')
  const state = r.requiredCode('stateIdentifier', 'state', 'address.state', 'delivery location')
  if (state === undefined) return undefined
  const location: DeliveryLocationRecord = {
    deliveryLocationUID: uid,
    deliveryLocationIdentifier: r.text('deliveryLocationIdentifier', 'deliveryLocationIdentifier')!,
    deliveryLocationName: r.text('deliveryLocationName', 'deliveryLocationName')!,
    address: defined({
      suburbLocalityOrTown: r.text('addressSuburbLocalityOrTown', 'address.suburbLocalityOrTown')!,
      postcode: r.text('postcode', 'address.postcode')!,
      state,
      country: r.code('countryIdentifier', 'country', 'address.country'),
    }),
  }
  return { resourceType: 'DeliveryLocation', uid, record: location, origin: origin.build() }
}
