// Registration and credentials of API clients (the student management systems acting for an RTO).
import type { Db, Tx } from '../db/database.ts'
import { ALL_SCOPES, isScope } from './scopes.ts'
import { generateSecret, hashSecret, verifySecret } from './secrets.ts'
import * as repo from './clients.repo.ts'

export interface ClientSummary {
  clientId: string
  rto: string
  scopes: string[]
  enabled: boolean
  createdAt: string
}

/** The two demo clients of the embedded default: written in the README so a newcomer can call at once. */
export const DEMO_CLIENTS = [
  { clientId: 'demo-rto-1', secret: 'demo-secret-1', rto: '90001' },
  { clientId: 'demo-rto-2', secret: 'demo-secret-2', rto: '90002' },
] as const

const CLIENT_ID = /^[A-Za-z0-9._-]{3,64}$/
const RTO_ID = /^[0-9A-Za-z]{1,10}$/ // AVETMISS training organisation identifier: up to 10 characters

export class ClientInputError extends Error {}

/** A change to an API client, told to whoever records it, in the change's own transaction. */
export interface ClientChange {
  kind: 'registered' | 'secret-rotated' | 'disabled' | 'enabled'
  clientId: string
  rto: string
  scopes: string[]
}
/**
 * Records a client change in its transaction: the events module's recordClientChange, which the CLI
 * and the console pass (the platform imports no module). Absent (tests, demo clients), nothing is told.
 */
export type ClientChangeRecorder = (tx: Tx, change: ClientChange) => Promise<void>

export async function addClient(
  db: Db,
  input: { clientId: string; rto: string; scopes: string[] },
  record?: ClientChangeRecorder,
): Promise<{ secret: string }> {
  if (!CLIENT_ID.test(input.clientId))
    throw new ClientInputError('client id: 3 to 64 letters, digits, dot, underscore or hyphen')
  if (!RTO_ID.test(input.rto)) throw new ClientInputError('RTO identifier: 1 to 10 letters or digits')
  const unknown = input.scopes.filter((scope) => !isScope(scope))
  if (unknown.length > 0 || input.scopes.length === 0)
    throw new ClientInputError(`scopes must be some of: ${ALL_SCOPES.join(', ')}`)
  const secret = generateSecret()
  const secretHash = await hashSecret(secret)
  await db.transaction().execute(async (tx) => {
    const inserted = await repo.insertClient(tx, {
      clientId: input.clientId,
      rto: input.rto,
      secretHash,
      scopes: input.scopes,
      isDemo: false,
    })
    if (!inserted) throw new ClientInputError(`client ${input.clientId} already exists`)
    await record?.(tx, { kind: 'registered', clientId: input.clientId, rto: input.rto, scopes: input.scopes })
  })
  return { secret }
}

/** Every client's id with its RTO, in RTO and id order. */
export async function listClientIds(db: Db): Promise<{ clientId: string; rto: string }[]> {
  return (await repo.listClientIds(db)).map((row) => ({ clientId: row.client_id, rto: row.rto_id }))
}

/** The clients of the RTOs an operator's search finds: code starting with the text, or a client id containing it. */
export async function clientIdsOfRtosMatching(db: Db, text: string): Promise<{ clientId: string; rto: string }[]> {
  return (await repo.clientIdsOfRtosMatching(db, text)).map((row) => ({ clientId: row.client_id, rto: row.rto_id }))
}

export async function listClients(db: Db): Promise<ClientSummary[]> {
  return (await repo.listClients(db)).map((row) => ({
    clientId: row.client_id,
    rto: row.rto_id,
    scopes: row.scopes,
    enabled: row.enabled,
    createdAt: new Date(row.created_at).toISOString(),
  }))
}

export async function setEnabled(
  db: Db,
  clientId: string,
  enabled: boolean,
  record?: ClientChangeRecorder,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const client = await repo.setClientEnabled(tx, clientId, enabled)
    if (!client) throw new ClientInputError(`no client ${clientId}`)
    const kind = enabled ? 'enabled' : 'disabled'
    await record?.(tx, { kind, clientId, rto: client.rto_id, scopes: client.scopes })
  })
}

export async function rotateSecret(
  db: Db,
  clientId: string,
  record?: ClientChangeRecorder,
): Promise<{ secret: string }> {
  const secret = generateSecret()
  const secretHash = await hashSecret(secret)
  await db.transaction().execute(async (tx) => {
    const client = await repo.replaceClientSecret(tx, clientId, secretHash)
    if (!client) throw new ClientInputError(`no client ${clientId}`)
    await record?.(tx, { kind: 'secret-rotated', clientId, rto: client.rto_id, scopes: client.scopes })
  })
  return { secret }
}

/** The client behind a credentials pair, if the secret matches and the client is enabled. */
export async function authenticateClient(
  db: Db,
  clientId: string,
  secret: string,
): Promise<repo.ApiClientRow | undefined> {
  const client = await repo.findClient(db, clientId)
  if (!client) {
    await hashSecret(secret) // same work either way, so timing does not reveal which client ids exist
    return undefined
  }
  const secretMatches = await verifySecret(secret, client.secret_hash) // also for a disabled client: same timing
  return secretMatches && client.enabled ? client : undefined
}

/** Development mode creates the demo clients; production refuses to run while any exist. */
export async function prepareDemoClients(db: Db, mode: 'development' | 'production'): Promise<void> {
  if (mode === 'production') {
    if ((await repo.countDemoClients(db)) > 0) {
      throw new Error(
        'Demo clients exist in this database; production mode refuses to start. Remove them (DELETE FROM api_client WHERE is_demo) first.',
      )
    }
    return
  }
  for (const demo of DEMO_CLIENTS) {
    if (await repo.findClient(db, demo.clientId)) continue
    await repo.insertClient(db, {
      clientId: demo.clientId,
      rto: demo.rto,
      secretHash: await hashSecret(demo.secret),
      scopes: [...ALL_SCOPES],
      isDemo: true,
    })
  }
}
