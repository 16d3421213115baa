// Test databases that start migrated. npm test (scripts/test.ts) prepares, once per run, a database
// with every migration and the reference data seed applied: a PGlite dump file for the embedded half,
// a TEMPLATE database on the server for the PostgreSQL half. Each test database then starts as a copy
// of it, instead of paying for initdb (PGlite), fifteen migrations and the seed again. Nothing else is
// in it: no clients, no signing key, no queue, so a service started on a copy is one starting on a
// migrated database, and production mode works on it. A test file run on its own (node --test
// test/x.test.ts) on the embedded database uses the PGlite template cached under
// node_modules/.cache by a hash of what makes it (cachedPgliteTemplate), made on the first such run:
// one file then runs in seconds instead of migrating PGlite from scratch.
import { createHash, randomBytes } from 'node:crypto'
import { globSync, readFileSync } from 'node:fs'
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
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

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * Everything the migrated, seeded template is made of: the migrations, the reference data module and
 * its seed files, and the PGlite version. A change to any of them gives another key, so a cached
 * template is never one an older migration made.
 */
export function templateKey(): string {
  const hash = createHash('sha256')
  const files = globSync(['src/platform/db/migrations/**/*.*', 'src/modules/reference-data/**/*.*'], { cwd: ROOT })
  for (const file of [...files.sort(), 'node_modules/@electric-sql/pglite/package.json'])
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(ROOT, file)))
      .update('\0')
  return hash.digest('hex').slice(0, 16)
}

/**
 * The PGlite template for the current migrations, made once and kept in node_modules/.cache: written
 * to a file of its own and renamed into place, so two processes making it at once both end with a
 * whole file, never a half-written one.
 */
export async function cachedPgliteTemplate(): Promise<string> {
  const path = join(ROOT, 'node_modules/.cache/vetrs-tests', `pglite-template-${templateKey()}.tar`)
  const exists = await stat(path).then(
    (found) => found.size > 0,
    () => false,
  )
  if (exists) return path
  await mkdir(dirname(path), { recursive: true })
  const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`
  await preparePgliteTemplate(partial)
  await rename(partial, path)
  return path
}

/** The cached PGlite template as a run's template (npm test): kept for the next run, not removed. */
export async function cachedPgliteRunTemplate(): Promise<Template> {
  return { env: { [PGLITE_TEMPLATE_ENV]: await cachedPgliteTemplate() }, remove: async () => {} }
}

let dump: Promise<Blob | undefined> | undefined

/**
 * The PGlite dump test databases start from, read once per test process: the run's (npm test), or,
 * for a file run on its own, the cached one (made now if it is not there yet).
 */
export function pgliteTemplate(): Promise<Blob | undefined> {
  dump ??= (async () => {
    const path = process.env[PGLITE_TEMPLATE_ENV] || (await cachedPgliteTemplate())
    return new Blob([await readFile(path)])
  })()
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
