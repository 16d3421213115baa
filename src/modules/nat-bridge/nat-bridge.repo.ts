// SQL for NAT imports: the zip a batch was made from and what its import answered, one row per batch.
import { sql, type Generated } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'

export interface NatImportTable {
  rto_id: string
  transaction_batch_token: string
  rto_code: string
  zip: Uint8Array
  /** The import's answer (NatImportResult), as JSON. */
  summary: unknown
  imported_by_client: string
  imported_at: Generated<Date>
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    nat_import: NatImportTable
  }
}

export async function insertNatImport(
  db: Executor,
  row: { rto: string; token: string; rtoCode: string; zip: Uint8Array; summary: unknown; clientId: string },
): Promise<void> {
  await db
    .insertInto('nat_import')
    .values({
      rto_id: row.rto,
      transaction_batch_token: row.token,
      rto_code: row.rtoCode,
      zip: row.zip,
      summary: JSON.stringify(row.summary),
      imported_by_client: row.clientId,
    })
    .execute()
}

export interface NatImportRow {
  rtoCode: string
  zip: Uint8Array
  summary: unknown
  importedAt: string
}

export async function findNatImport(db: Executor, rto: string, token: string): Promise<NatImportRow | undefined> {
  const row = await db
    .selectFrom('nat_import')
    .select(['rto_code', 'zip', 'summary', 'imported_at'])
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .executeTakeFirst()
  if (!row) return undefined
  return {
    rtoCode: row.rto_code,
    zip: row.zip,
    summary: typeof row.summary === 'string' ? JSON.parse(row.summary) : row.summary,
    importedAt: new Date(row.imported_at).toISOString(),
  }
}

/** Only what the import answered (not the zip): for pages that show the answer. */
export async function findNatImportSummary(db: Executor, rto: string, token: string): Promise<unknown> {
  const row = await db
    .selectFrom('nat_import')
    .select('summary')
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .executeTakeFirst()
  if (!row) return undefined
  return typeof row.summary === 'string' ? JSON.parse(row.summary) : row.summary
}

/**
 * How many NAT problems (lines it could not read or map, records refused) the import that made the
 * batch left out; undefined when no NAT import made it. Reads one number out of the stored answer.
 */
export async function findNatProblemCount(db: Executor, rto: string, token: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('nat_import')
    .select(sql<string | number | null>`summary->>'natProblemCount'`.as('count'))
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .executeTakeFirst()
  if (!row) return undefined
  return Number(row.count ?? 0)
}

/** The NAT file names each of these batches was imported from (batches no import made are absent). */
export async function natFileNamesOf(db: Executor, rto: string, tokens: string[]): Promise<Map<string, string[]>> {
  if (tokens.length === 0) return new Map()
  const rows = await db
    .selectFrom('nat_import')
    .select(['transaction_batch_token', sql<unknown>`summary -> 'files'`.as('files')])
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', 'in', tokens)
    .execute()
  return new Map(
    rows.map((row) => {
      const files = (typeof row.files === 'string' ? JSON.parse(row.files) : row.files) as { file?: unknown }[] | null
      const names = (Array.isArray(files) ? files : []).map((f) => String(f.file ?? ''))
      return [row.transaction_batch_token, names]
    }),
  )
}
