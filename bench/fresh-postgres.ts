// A database of its own on the PostgreSQL server at `url` for one benchmark, dropped afterwards.
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export async function withFreshPostgres<T>(url: string, body: (databaseUrl: string) => Promise<T>): Promise<T> {
  const name = `vetrs_bench_${randomBytes(6).toString('hex')}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE ${name}`)
  try {
    const databaseUrl = new URL(url)
    databaseUrl.pathname = `/${name}`
    return await body(databaseUrl.toString())
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
}
