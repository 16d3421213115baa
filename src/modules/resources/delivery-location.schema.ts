// DeliveryLocation: a physical place where training occurs (AVETMISS 8.0 NAT00020).
import { Strict, Uuid4 } from '../../platform/http/types.ts'
import { LocationAddress, Text, commonFields, resourceOptions } from './common.schemas.ts'

export const DeliveryLocation = Strict(
  {
    deliveryLocationUID: Uuid4({
      description: 'permanent client-generated identifier of this delivery location (UUID version 4)',
    }),
    deliveryLocationIdentifier: Text(
      10,
      "the RTO's own code for the location (AVETMISS training organisation delivery location identifier, 10)",
    ),
    deliveryLocationName: Text(
      100,
      'name of the location, e.g. Sydney CBD Campus (AVETMISS training organisation delivery location name, 100)',
    ),
    address: LocationAddress,
    ...commonFields,
  },
  resourceOptions('a physical place where training occurs (AVETMISS NAT00020)'),
)
