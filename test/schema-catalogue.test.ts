// The migrated database's catalogue against the placement of every table for a database sharded by
// RTO (TABLE_PLACEMENT in src/platform/db/schema.ts; docs/operations.md, "Beyond one primary"): every
// table is placed (hot, reference or local), a hot table's primary key leads with the RTO column, its
// unique indexes and foreign keys include it, and no table that is not hot refers to a hot one. A new
// table fails here until it is placed; a hot table keyed otherwise fails here before it reaches a
// sharded database. Both halves: the schema is the same on PGlite and PostgreSQL, pg-boss's included.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import type { Db } from '../src/platform/db/database.ts'
import { DISTRIBUTION_COLUMN, SCHEMA_PLACEMENT, TABLE_PLACEMENT, type Placement } from '../src/platform/db/schema.ts'
import { startTestService, type TestService } from './support/index.ts'

interface CatalogueTable {
  schema: string
  table: string
  primaryKey: string[] | null
  /** Unique indexes other than the primary key's (partial ones included), by name. */
  uniques: { name: string; columns: string[] }[]
  foreignKeys: { name: string; columns: string[]; references: string; referencedColumns: string[] }[]
}

/** Every ordinary or partitioned table outside PostgreSQL's own schemas, with its keys. */
async function readCatalogue(db: Db): Promise<CatalogueTable[]> {
  const { rows } = await sql<CatalogueTable>`
    SELECT n.nspname AS schema, c.relname AS table,
           (SELECT array_agg(a.attname::text ORDER BY k.n)
              FROM pg_constraint p, unnest(p.conkey) WITH ORDINALITY AS k(attnum, n)
              JOIN pg_attribute a ON a.attnum = k.attnum
             WHERE p.conrelid = c.oid AND p.contype = 'p' AND a.attrelid = c.oid) AS "primaryKey",
           COALESCE((SELECT json_agg(json_build_object(
                       'name', i.relname,
                       'columns', (SELECT array_agg(a.attname::text ORDER BY k.n)
                                     FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                                     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum))
                       ORDER BY i.relname)
                       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                      WHERE x.indrelid = c.oid AND x.indisunique AND NOT x.indisprimary), '[]') AS uniques,
           COALESCE((SELECT json_agg(json_build_object(
                       'name', p.conname,
                       'columns', (SELECT array_agg(a.attname::text ORDER BY k.n)
                                     FROM unnest(p.conkey) WITH ORDINALITY AS k(attnum, n)
                                     JOIN pg_attribute a ON a.attrelid = p.conrelid AND a.attnum = k.attnum),
                       'references', (SELECT rn.nspname || '.' || r.relname FROM pg_class r
                                        JOIN pg_namespace rn ON rn.oid = r.relnamespace WHERE r.oid = p.confrelid),
                       'referencedColumns', (SELECT array_agg(a.attname::text ORDER BY k.n)
                                     FROM unnest(p.confkey) WITH ORDINALITY AS k(attnum, n)
                                     JOIN pg_attribute a ON a.attrelid = p.confrelid AND a.attnum = k.attnum))
                       ORDER BY p.conname)
                       FROM pg_constraint p WHERE p.conrelid = c.oid AND p.contype = 'f'), '[]') AS "foreignKeys"
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp_)'
     ORDER BY 1, 2`.execute(db)
  return rows
}

/** What stops the schema from being sharded by RTO as placed; empty when nothing does. */
function placementProblems(
  catalogue: CatalogueTable[],
  tables: Record<string, Placement> = TABLE_PLACEMENT,
  schemas: Record<string, Placement> = SCHEMA_PLACEMENT,
): string[] {
  const problems: string[] = []
  const placementOf = (qualified: string): Placement | undefined => {
    const [schema, table] = qualified.split('.') as [string, string]
    return schema === 'public' ? tables[table] : schemas[schema]
  }
  const seen = new Set<string>()
  for (const t of catalogue) {
    const name = `${t.schema}.${t.table}`
    seen.add(t.schema === 'public' ? t.table : `schema ${t.schema}`)
    const placement = placementOf(name)
    if (placement === undefined) {
      problems.push(
        t.schema === 'public'
          ? `${name} is not placed: add it to TABLE_PLACEMENT (src/platform/db/schema.ts) as hot, reference or local, and to docs/operations.md`
          : `schema ${t.schema} (table ${name}) is not placed: add it to SCHEMA_PLACEMENT`,
      )
      continue
    }
    if (placement === 'hot') {
      if (t.primaryKey?.[0] !== DISTRIBUTION_COLUMN)
        problems.push(
          `${name} is hot but its primary key (${t.primaryKey?.join(', ') ?? 'none'}) does not lead with ${DISTRIBUTION_COLUMN}`,
        )
      for (const unique of t.uniques)
        if (!unique.columns.includes(DISTRIBUTION_COLUMN))
          problems.push(
            `${name} is hot but its unique index ${unique.name} (${unique.columns.join(', ')}) does not include ${DISTRIBUTION_COLUMN}`,
          )
    }
    for (const key of t.foreignKeys) {
      const target = placementOf(key.references)
      const to = `${name}.${key.name} -> ${key.references}`
      if (target === 'hot' && placement !== 'hot') problems.push(`${to}: a ${placement} table refers to a hot table`)
      if (target === 'local' && placement !== 'local')
        problems.push(`${to}: a ${placement} table refers to a local table`)
      if (placement === 'hot' && target === 'hot') {
        const at = key.columns.indexOf(DISTRIBUTION_COLUMN)
        if (at < 0 || key.referencedColumns[at] !== DISTRIBUTION_COLUMN)
          problems.push(
            `${to}: a foreign key between hot tables must match ${DISTRIBUTION_COLUMN} to ${DISTRIBUTION_COLUMN}`,
          )
      }
    }
  }
  for (const table of Object.keys(tables))
    if (!seen.has(table)) problems.push(`TABLE_PLACEMENT names ${table}, which the migrated database does not have`)
  return problems
}

describe('the catalogue, placed for a database sharded by RTO', () => {
  let t: TestService
  let catalogue: CatalogueTable[]
  before(async () => {
    t = await startTestService() // migrated, reference data seeded, pg-boss's schema created
    catalogue = await readCatalogue(t.service.database.db)
  })
  after(() => t?.close())

  it('places every table, and every hot table is keyed by the RTO first', () => {
    assert.deepEqual(placementProblems(catalogue), [])
    const hot = catalogue.filter(
      (table) => table.schema === 'public' && TABLE_PLACEMENT[table.table as never] === 'hot',
    )
    assert.ok(hot.length >= 13, `hot tables found: ${hot.map((table) => table.table).join(', ')}`)
    assert.ok(
      catalogue.some((table) => table.schema === 'pgboss'),
      "pg-boss's schema is in the catalogue, placed as a whole",
    )
  })

  it('fails on a table nobody placed, and on a hot table keyed otherwise', async () => {
    const db = t.service.database.db
    await sql`CREATE TABLE catalogue_probe (id int PRIMARY KEY, rto_id text NOT NULL, code text, UNIQUE (code))`.execute(
      db,
    )
    try {
      const planted = await readCatalogue(db)
      assert.deepEqual(placementProblems(planted), [
        'public.catalogue_probe is not placed: add it to TABLE_PLACEMENT (src/platform/db/schema.ts) as hot, reference or local, and to docs/operations.md',
      ])
      assert.deepEqual(placementProblems(planted, { ...TABLE_PLACEMENT, catalogue_probe: 'hot' }), [
        'public.catalogue_probe is hot but its primary key (id) does not lead with rto_id',
        'public.catalogue_probe is hot but its unique index catalogue_probe_code_key (code) does not include rto_id',
      ])
      assert.deepEqual(placementProblems(catalogue, { ...TABLE_PLACEMENT, catalogue_gone: 'local' }), [
        'TABLE_PLACEMENT names catalogue_gone, which the migrated database does not have',
      ])
    } finally {
      await sql`DROP TABLE catalogue_probe`.execute(db)
    }
  })
})
