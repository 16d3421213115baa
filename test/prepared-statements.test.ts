// Hot statements marked `/* prepared:<name> */` are prepared once per connection on PostgreSQL and
// run as plain SQL (the marker is a comment) on PGlite; the upload path relies on both.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { PreparingClient, preparedAs } from '../src/platform/db/prepared-statements.ts'
import { onPostgres, startTestService } from './support/index.ts'

describe('prepared statements', () => {
  it('a marked statement is prepared once under its name on PostgreSQL, an unmarked one is not kept', {
    skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE=postgres)',
  }, async () => {
    const client = new PreparingClient({ connectionString: process.env.DATABASE_URL })
    await client.connect()
    try {
      const marked = `${preparedAs('test_add_one')} SELECT $1::int + 1 AS n`
      assert.equal((await client.query(marked, [1])).rows[0].n, 2)
      assert.equal((await client.query(marked, [41])).rows[0].n, 42, 'the prepared statement runs with new parameters')
      await client.query('SELECT $1::int AS unmarked', [1])
      const kept: { rows: { name: string }[] } = await client.query(
        'SELECT name FROM pg_prepared_statements ORDER BY name',
      )
      assert.deepEqual(
        kept.rows.map((row) => row.name),
        ['test_add_one'],
      )
    } finally {
      await client.end()
    }
  })

  it("the marker is only a comment to the database: the same statement runs through the service's database on either transport", async () => {
    const t = await startTestService()
    try {
      const result = await sql<{
        n: number
      }>`${sql.raw(preparedAs('test_add_two'))} SELECT ${40}::int + 2 AS n`.execute(t.service.database.db)
      assert.equal(result.rows[0]!.n, 42)
    } finally {
      await t.close()
    }
  })
})
