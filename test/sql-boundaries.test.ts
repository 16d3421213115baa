// Module boundaries in SQL (issue 34): dependency-cruiser sees imports, not the table names inside a
// query, so this reads every module's source. A module's SQL may name its own tables and the views
// other modules publish for it (migrations/0020_published_views.ts), never another module's table: a
// change to a table then touches its owner alone. The published views are checked against the
// migrated database, and each rule against a planted violation.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import { startTestService, type TestService } from './support/index.ts'

/** Each table's owner (src/platform/db/schema.ts names them too; docs/architecture.md, "Who owns which table"). */
const TABLE_OWNER: Record<string, string> = {
  transaction_batch: 'batches',
  batch_record: 'batches',
  batch_record_count: 'batches',
  reference_record_version: 'reference-data',
  validation_run: 'validation',
  validation_result: 'validation',
  held_record: 'holdings',
  reporting_period_submission: 'holdings',
  reported_activity: 'holdings',
  rto_jurisdiction_submission: 'holdings',
  submit_job: 'holdings',
  held_link: 'reconciliation',
  reconciliation_item: 'reconciliation',
  reconciliation_day_count: 'reconciliation',
  reconciliation_progress: 'reconciliation',
  reconciliation_progress_affected: 'reconciliation',
  reconciliation_progress_dropped_link: 'reconciliation',
  reconciliation_progress_before: 'reconciliation',
  reconciliation_staged_link: 'reconciliation',
  assessment_run: 'assessment',
  assessment_result: 'assessment',
  assessment_stage: 'assessment',
  declaration: 'declarations',
  collection_due_date: 'declarations',
  declaration_extension: 'declarations',
  declaration_due_notice: 'declarations',
  warning_acknowledgement: 'declarations',
  housekeeping_run: 'housekeeping',
  audit_entry: 'audit',
  audit_day: 'audit',
  nat_import: 'nat-bridge',
  nat_import_job: 'nat-bridge',
  console_session: 'console',
  event_outbox: 'events',
  event_stream: 'events',
  event_relay_position: 'events',
  webhook_endpoint: 'webhooks',
  webhook_attempt: 'webhooks',
  webhook_redelivery: 'webhooks',
}

/** What each owner publishes for the others' SQL to read. */
const PUBLISHED_VIEW_OWNER: Record<string, string> = {
  batch_content: 'batches',
  batch_fingerprint: 'batches',
  batch_change_marker: 'batches',
  held_current: 'holdings',
  held_in_submission: 'holdings',
  period_last_submission: 'holdings',
}

const MODULES = new URL('../src/modules/', import.meta.url).pathname

/** Source without comments, so a comment that names a table ("reads batches' batch_record") is no read. */
const withoutComments = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')

/** The tables and views a piece of source names in SQL text or through Kysely's builders. */
export function relationsNamed(source: string): Set<string> {
  const code = withoutComments(source)
  const names = new Set<string>()
  for (const match of code.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE|USING|TABLE)\s+([a-z_][a-z0-9_]*)/g))
    names.add(match[1]!)
  for (const match of code.matchAll(
    /\.(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*'([a-z_][a-z0-9_]*)/g,
  ))
    names.add(match[1]!)
  return names
}

/** Every other module's table a module's source names: `module: file names table`. */
function crossings(module: string, files: { name: string; source: string }[]): string[] {
  const found: string[] = []
  for (const file of files)
    for (const name of relationsNamed(file.source)) {
      const owner = TABLE_OWNER[name]
      if (owner !== undefined && owner !== module) found.push(`${module}: ${file.name} names ${owner}'s table ${name}`)
    }
  return found
}

function sourcesOf(module: string): { name: string; source: string }[] {
  const directory = join(MODULES, module)
  return (readdirSync(directory, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => ({ name, source: readFileSync(join(directory, name), 'utf8') }))
}

describe('module boundaries in SQL', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ service: { workers: false } })
  })
  after(() => t?.close())

  it("no module's SQL names another module's table: it reads the views the owner publishes", () => {
    const modules = readdirSync(MODULES, { withFileTypes: true }).filter((entry) => entry.isDirectory())
    assert.ok(modules.length >= 10)
    assert.deepEqual(
      modules.flatMap((entry) => crossings(entry.name, sourcesOf(entry.name))),
      [],
    )
  })

  it('a planted read of another module’s table is found, in SQL text and through a builder; a comment or a view is not', () => {
    const planted = [
      { name: 'a.ts', source: 'sql`SELECT 1 FROM held_record h WHERE h.is_current`' },
      { name: 'b.ts', source: "db.selectFrom('batch_record').selectAll()" },
      {
        name: 'c.ts',
        source:
          "// reads batches' batch_record\nsql`SELECT 1 FROM batch_content JOIN held_in_submission USING (rto_id)`",
      },
    ]
    assert.deepEqual(crossings('validation', planted), [
      "validation: a.ts names holdings's table held_record",
      "validation: b.ts names batches's table batch_record",
    ])
  })

  it('every table of the migrated database has an owner, and the published views are exactly those the migrations create', async () => {
    const db = t.service.database.db
    const { rows: tables } = await sql<{ name: string }>`
      SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'kysely_%'
         AND table_name NOT IN ('api_client', 'token_issuance', 'signing_key', 'idempotency_key')`.execute(db)
    assert.deepEqual(tables.map((row) => row.name).sort(), Object.keys(TABLE_OWNER).sort())
    const { rows: views } = await sql<{ name: string }>`
      SELECT table_name AS name FROM information_schema.views WHERE table_schema = 'public'`.execute(db)
    assert.deepEqual(views.map((row) => row.name).sort(), Object.keys(PUBLISHED_VIEW_OWNER).sort())
    // A view is its owner's: it reads the owner's tables alone.
    const { rows: definitions } = await sql<{ name: string; definition: string }>`
      SELECT viewname AS name, definition FROM pg_views WHERE schemaname = 'public'`.execute(db)
    for (const { name, definition } of definitions)
      for (const relation of relationsNamed(definition.replace(/\b(from|join)\b/gi, (word) => word.toUpperCase())))
        if (TABLE_OWNER[relation])
          assert.equal(TABLE_OWNER[relation], PUBLISHED_VIEW_OWNER[name], `${name} reads ${relation}`)
  })
})
