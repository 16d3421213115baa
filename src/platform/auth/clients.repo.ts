// SQL for API clients and the token issuance audit trail. One operation per function.
import { sql, type Generated, type Selectable } from 'kysely'
import type { Executor } from '../db/database.ts'

export interface ApiClientTable {
  client_id: string
  rto_id: string
  secret_hash: string
  scopes: string[]
  enabled: Generated<boolean>
  is_demo: Generated<boolean>
  created_at: Generated<Date>
  secret_rotated_at: Date | null
  disabled_at: Date | null
}

export interface TokenIssuanceTable {
  token_id: string
  client_id: string
  rto_id: string
  issued_at: Date
  expires_at: Date
}

declare module '../db/schema.ts' {
  interface Database {
    api_client: ApiClientTable
    token_issuance: TokenIssuanceTable
  }
}

export type ApiClientRow = Selectable<ApiClientTable>

export async function findClient(db: Executor, clientId: string): Promise<ApiClientRow | undefined> {
  return db.selectFrom('api_client').selectAll().where('client_id', '=', clientId).executeTakeFirst()
}

export async function listClients(db: Executor): Promise<ApiClientRow[]> {
  return db.selectFrom('api_client').selectAll().orderBy('rto_id').orderBy('client_id').execute()
}

/** Every client's id and RTO only (the operators' list of RTOs needs nothing else of thousands of rows). */
export async function listClientIds(db: Executor): Promise<{ client_id: string; rto_id: string }[]> {
  return db.selectFrom('api_client').select(['client_id', 'rto_id']).orderBy('rto_id').orderBy('client_id').execute()
}

/**
 * The clients of every RTO whose code starts with the text or that has a client whose id contains it
 * (case aside; LIKE's wildcards in the text taken literally): an operator's search of the RTOs, where
 * listing every client per view cost the page's time at national scale.
 */
export async function clientIdsOfRtosMatching(
  db: Executor,
  text: string,
): Promise<{ client_id: string; rto_id: string }[]> {
  const literal = text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)
  return db
    .selectFrom('api_client')
    .select(['client_id', 'rto_id'])
    .where('rto_id', 'in', (eb) =>
      eb
        .selectFrom('api_client')
        .select('rto_id')
        .where((w) =>
          w.or([w(sql`lower(rto_id)`, 'like', `${literal}%`), w(sql`lower(client_id)`, 'like', `%${literal}%`)]),
        ),
    )
    .orderBy('rto_id')
    .orderBy('client_id')
    .execute()
}

export async function insertClient(
  db: Executor,
  client: { clientId: string; rto: string; secretHash: string; scopes: string[]; isDemo: boolean },
): Promise<boolean> {
  const result = await db
    .insertInto('api_client')
    .values({
      client_id: client.clientId,
      rto_id: client.rto,
      secret_hash: client.secretHash,
      scopes: client.scopes,
      is_demo: client.isDemo,
      secret_rotated_at: null,
      disabled_at: null,
    })
    .onConflict((conflict) => conflict.column('client_id').doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
}

/** The client's RTO and scopes once changed; undefined when there is no such client. */
export async function setClientEnabled(
  db: Executor,
  clientId: string,
  enabled: boolean,
): Promise<{ rto_id: string; scopes: string[] } | undefined> {
  return db
    .updateTable('api_client')
    .set({ enabled, disabled_at: enabled ? null : new Date() })
    .where('client_id', '=', clientId)
    .returning(['rto_id', 'scopes'])
    .executeTakeFirst()
}

/** The client's RTO and scopes once changed; undefined when there is no such client. */
export async function replaceClientSecret(
  db: Executor,
  clientId: string,
  secretHash: string,
): Promise<{ rto_id: string; scopes: string[] } | undefined> {
  return db
    .updateTable('api_client')
    .set({ secret_hash: secretHash, secret_rotated_at: new Date() })
    .where('client_id', '=', clientId)
    .returning(['rto_id', 'scopes'])
    .executeTakeFirst()
}

export async function countDemoClients(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('api_client')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('is_demo', '=', true)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

export async function recordTokenIssuance(db: Executor, issuance: TokenIssuanceTable): Promise<void> {
  await db.insertInto('token_issuance').values(issuance).execute()
}

export async function deleteTokenIssuancesExpiredBefore(db: Executor, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom('token_issuance').where('expires_at', '<', cutoff).executeTakeFirst()
  return Number(result.numDeletedRows)
}
