// The demo people of the built-in identity provider (development mode and tests only): for each demo
// RTO an RTO staff member and an authorised person, and one operator of the collector. Written in the
// README, like the demo API clients, so that a newcomer can sign in at once.
import type { ConsoleRole } from './console-people.ts'

export interface DemoPerson {
  username: string
  name: string
  email: string
  role: ConsoleRole
  /** The RTO the person acts for; none for an operator. */
  rto: string | undefined
}

/** Every demo person signs in with this password; the built-in provider never runs in production. */
export const DEMO_PASSWORD = 'demo'

export const DEMO_PEOPLE: readonly DemoPerson[] = [
  {
    username: 'staff-90001',
    name: 'Robin Staff',
    email: 'robin.staff@rto-90001.example',
    role: 'rto-staff',
    rto: '90001',
  },
  {
    username: 'declarer-90001',
    name: 'Alex Authorised',
    email: 'alex.authorised@rto-90001.example',
    role: 'authorised-person',
    rto: '90001',
  },
  { username: 'staff-90002', name: 'Sam Staff', email: 'sam.staff@rto-90002.example', role: 'rto-staff', rto: '90002' },
  {
    username: 'declarer-90002',
    name: 'Jo Authorised',
    email: 'jo.authorised@rto-90002.example',
    role: 'authorised-person',
    rto: '90002',
  },
  {
    username: 'operator',
    name: 'Casey Operator',
    email: 'casey.operator@collector.example',
    role: 'operator',
    rto: undefined,
  },
]

export function demoPerson(username: string): DemoPerson | undefined {
  return DEMO_PEOPLE.find((person) => person.username === username)
}
