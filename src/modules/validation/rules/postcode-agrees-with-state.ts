// BRTS01220: an address's postcode lies in its state's postcode ranges (domain notes: AVS postcode
// checks), and OSPC goes only with state Overseas.
import { defineRecordRule, finding, type Finding } from '../rule.ts'

type Range = readonly [number, number]
// Ranges from the domain notes. NSW keeps the whole 1000-2999 block: border towns such as Queanbeyan
// sit among ACT numbers, and a false Error would block a correct record.
const RANGES: Record<string, readonly Range[]> = {
  NSW: [[1000, 2999]],
  ACT: [
    [200, 299],
    [2600, 2618],
    [2900, 2999],
  ],
  VIC: [
    [3000, 3999],
    [8000, 8999],
  ],
  QLD: [
    [4000, 4999],
    [9000, 9999],
  ],
  SA: [[5000, 5999]],
  WA: [[6000, 6999]],
  TAS: [[7000, 7999]],
  NT: [[800, 999]],
}

export function postcodeProblem(postcode: string, state: string | undefined): string | undefined {
  if (state === undefined) return undefined // left out, or No_value (rules never see it: no-value.ts)
  if (state === 'Overseas')
    return postcode === 'OSPC' ? undefined : `state is Overseas but postcode is ${postcode}, not OSPC`
  if (postcode === 'OSPC') return `postcode OSPC is only for state Overseas, not ${state}`
  const ranges = RANGES[state]
  if (!ranges) return undefined // other Australian territories: their postcodes lie inside other states' blocks
  const number = Number(postcode)
  return ranges.some(([low, high]) => number >= low && number <= high)
    ? undefined
    : `postcode ${postcode} is not a ${state} postcode`
}

interface Address {
  postcode: string
  state?: string
}

function check(address: Address | undefined, path: string): Finding[] {
  const problem = address && postcodeProblem(address.postcode, address.state)
  return problem ? [finding([`${path}.postcode`, `${path}.state`], `${path}: ${problem}.`)] : []
}

export default defineRecordRule({
  technicalRuleId: 'BRTS01220',
  ruleId: 'BRDG00020',
  level: 'Error',
  resourceTypes: ['Student', 'DeliveryLocation'],
  title: 'A postcode agrees with its state',
  description:
    "Every address's postcode lies in the postcode ranges of its state or territory; OSPC is only for state Overseas, and state Overseas needs OSPC.",
  correctiveAction: 'Correct the postcode or the state of the address so that they agree.',
  check: (record) =>
    'address' in record
      ? check(record.address, '$.address')
      : (['permanentAddress', 'termAddress', 'postalAddress'] as const).flatMap((name) =>
          check(record[name], `$.${name}`),
        ),
})
