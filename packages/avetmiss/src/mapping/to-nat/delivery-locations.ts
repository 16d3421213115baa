// Delivery locations to NAT00020. NAT00020 has no street address: the API's street parts are not
// written (docs/decisions.md, "NAT bridge: mapping").
import type { NatValues } from '../../layouts/index.ts'
import { defined } from '../objects.ts'
import { type ExportContext, notStated } from './context.ts'

export function deliveryLocationsToNat(context: ExportContext): NatValues<'NAT00020'>[] {
  const lines: NatValues<'NAT00020'>[] = []
  for (const [uid, location] of context.byUid.DeliveryLocation) {
    const { address } = location
    const state = context.code('DeliveryLocation', uid, 'address.state', 'state', address.state)
    if (state === undefined) continue // the state is required in NAT00020, and has no "not stated"
    lines.push(
      defined({
        trainingOrganisationIdentifier: context.rtoCode,
        deliveryLocationIdentifier: location.deliveryLocationIdentifier,
        deliveryLocationName: location.deliveryLocationName,
        postcode: address.postcode,
        stateIdentifier: state,
        addressSuburbLocalityOrTown: address.suburbLocalityOrTown,
        countryIdentifier:
          context.code('DeliveryLocation', uid, 'address.country', 'country', address.country) ??
          notStated('NAT00020', 'countryIdentifier'),
      }),
    )
  }
  return lines
}
