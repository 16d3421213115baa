// Test databases that start migrated. npm test (scripts/test.ts) prepares, once per run, a database
// with every migration and the reference data seed applied: a PGlite dump file for the embedded half,
// a TEMPLATE database on the server for the PostgreSQL half. Each test database then starts as a copy
// of it, instead of paying for initdb (PGlite), fifteen migrations and the seed again. Nothing else is
// in it: no clients, no signing key, no queue, so a service started on a copy is one starting on a
// migrated database, and production mode works on it. A test file run on its own (node --test
// test/x.test.ts) has no template: its databases start empty and the service migrates them.
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { loadConfig } from '../../src/config/config.ts'
import { openDatabase } from '../../src/platform/db/database.ts'
import { migrateToLatest } from '../../src/platform/db/migrate.ts'
import { seedReferenceData } from '../../src/modules/reference-data/index.ts'

/** The PGlite dump file of the run (embedded half). */
export const PGLITE_TEMPLATE_ENV = 'TEST_PGLITE_TEMPLATE'
/** The name of the run's template database on the PostgreSQL server (PostgreSQL half). */
export const POSTGRES_TEMPLATE_ENV = 'TEST_POSTGRES_TEMPLATE'

export interface Template {
  /** The environment that points the half's test processes at it. */
  env: Record<string, string>
  remove(): Promise<void>
}

type DatabaseConfig = Parameters<typeof openDatabase>[0]

async function migrateAndSeed(
  config: DatabaseConfig,
  then: (database: Awaited<ReturnType<typeof openDatabase>>) => Promise<void>,
) {
  const database = await openDatabase(config)
  try {
    await migrateToLatest(database.db)
    await seedReferenceData(database.db)
    await then(database)
  } finally {
    await database.close()
  }
}

/** Migrates and seeds an in-memory PGlite and writes its dump to `path`. */
export async function preparePgliteTemplate(path: string): Promise<Template> {
  await migrateAndSeed({ kind: 'pglite', dataDir: 'memory://' }, async (database) => {
    const dump = await database.pglite!.dumpDataDir('none')
    await writeFile(path, Buffer.from(await dump.arrayBuffer()))
  })
  return { env: { [PGLITE_TEMPLATE_ENV]: path }, remove: () => rm(path, { force: true }) }
}

/** Creates a migrated, seeded database on the server of `adminUrl` for CREATE DATABASE ... TEMPLATE. */
export async function preparePostgresTemplate(adminUrl: string): Promise<Template> {
  const name = `vetrs_template_${randomBytes(6).toString('hex')}`
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`)
  const remove = () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  try {
    // Every connection is closed afterwards: a database is copied only while nobody is connected to it.
    await migrateAndSeed(loadConfig({ DATABASE_URL: withDatabase(adminUrl, name) }).database, async () => {})
  } catch (error) {
    await remove()
    throw error
  }
  return { env: { [POSTGRES_TEMPLATE_ENV]: name }, remove }
}

let dump: Promise<Blob | undefined> | undefined

/** The run's PGlite dump, when there is one: read once per test process. */
export function pgliteTemplate(): Promise<Blob | undefined> {
  const path = process.env[PGLITE_TEMPLATE_ENV]
  dump ??= path ? readFile(path).then((bytes) => new Blob([bytes])) : Promise.resolve(undefined)
  return dump
}

/**
 * Fills an embedded data directory (for a service in a child process, or one restarted on it) with a
 * copy of the run's template; without a template it stays as it is, and the service initialises it.
 */
export async function copyPgliteTemplateTo(dataDir: string): Promise<void> {
  const template = await pgliteTemplate()
  if (!template) return
  await mkdir(dataDir, { recursive: true })
  const pglite = await PGlite.create(dataDir, { loadDataDir: template })
  await pglite.close()
}

/** The run's template database on the server, when there is one. */
export const postgresTemplate = (): string | undefined => process.env[POSTGRES_TEMPLATE_ENV] || undefined

export async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}
