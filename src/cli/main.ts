// Operator command line: database migrations and API client management.
//   npm run migrate
//   npm run cli -- clients add <clientId> --rto 90001 [--scopes vet:report,vet:read]
//   npm run cli -- clients list | disable <clientId> | enable <clientId> | rotate-secret <clientId>
//   npm run cli -- reference-data load <dataset> <file.csv|tsv>   |   reference-data list
//   npm run audit:verify -- --from 2026-11-01 --to 2026-11-30      (npm run cli -- audit verify ...)
import { userInfo } from 'node:os'
import { Command } from 'commander'
import type { AuditAction } from '../domain/audit.ts'
import { ConfigError, loadConfig } from '../config/config.ts'
import { openDatabase, type Db } from '../platform/db/database.ts'
import { migrateToLatest } from '../platform/db/migrate.ts'
import { migrations } from '../platform/db/migrations/index.ts'
import { StartupError } from '../platform/startup.ts'
import * as clients from '../platform/auth/clients.service.ts'
import { ALL_SCOPES } from '../platform/auth/scopes.ts'
import { datasets, loadReleaseFile, ReleaseFileError } from '../modules/reference-data/index.ts'
import { recordClientChange } from '../modules/events/index.ts'
import { recordAudit, verifyAudit } from '../modules/audit/index.ts'
import type { ClientChange, ClientChangeRecorder } from '../platform/auth/clients.service.ts'
import type { Executor } from '../platform/db/database.ts'

/** The operator at this command line, as the audit trail names them (their login, no name). */
const operatorId = () => {
  try {
    return `cli:${userInfo().username}`
  } catch {
    return 'cli'
  }
}

/** Writes the CLI's audit entry for a change (issue 33). */
const auditCli = (db: Executor, action: AuditAction, target: { recordType: string; recordId: string; rto?: string }) =>
  recordAudit(db, {
    actorKind: 'operator',
    actorId: operatorId(),
    actorRole: 'operator',
    sourceAddress: null,
    action,
    recordType: target.recordType,
    recordId: target.recordId,
    batchToken: null,
    rto: target.rto ?? null,
    outcome: 'success',
    status: null,
    requestId: null,
  })

const CLIENT_ACTIONS: Record<ClientChange['kind'], AuditAction> = {
  registered: 'client.register',
  'secret-rotated': 'client.rotate-secret',
  disabled: 'client.disable',
  enabled: 'client.enable',
}

/** A client change's event and its audit entry, both in the change's transaction. */
const recordClientChangeAudited: ClientChangeRecorder = async (tx, change) => {
  await recordClientChange(tx, change)
  await auditCli(tx, CLIENT_ACTIONS[change.kind], {
    recordType: 'api-client',
    recordId: change.clientId,
    rto: change.rto,
  })
}

// Every command but migrate brings the schema up to date first; migrate does it itself, to report it.
async function withDatabase(action: (db: Db) => Promise<void>, { migrate = true } = {}): Promise<void> {
  const handle = await openDatabase(loadConfig(process.env, { signsTokens: false }).database)
  try {
    if (migrate) await migrateToLatest(handle.db)
    await action(handle.db)
  } finally {
    await handle.close()
  }
}

const program = new Command('vetrs-admin')
  .description('Administration of the VET Reporting Service')
  .showHelpAfterError()

program
  .command('migrate')
  .description('bring the database schema up to date')
  .action(() =>
    withDatabase(
      async (db) => {
        const applied = await migrateToLatest(db)
        if (applied.length === 0)
          return console.log(`schema is up to date (latest migration ${Object.keys(migrations).at(-1)})`)
        console.log(
          `applied ${applied.length} migration${applied.length === 1 ? '' : 's'}:\n${applied.map((name) => `  ${name}`).join('\n')}`,
        )
      },
      { migrate: false },
    ),
  )

const clientCommand = program.command('clients').description('manage API clients')

clientCommand
  .command('add <clientId>')
  .description('register a client; prints its secret once')
  .requiredOption('--rto <rto>', 'the RTO identifier the client acts for')
  .option('--scopes <scopes>', `comma-separated scopes (${ALL_SCOPES.join(', ')})`, ALL_SCOPES.join(','))
  .action((clientId: string, options: { rto: string; scopes: string }) =>
    withDatabase(async (db) => {
      const { secret } = await clients.addClient(
        db,
        {
          clientId,
          rto: options.rto,
          scopes: options.scopes.split(',').map((s) => s.trim()),
        },
        recordClientChangeAudited,
      )
      console.log(
        `client_id:     ${clientId}\nclient_secret: ${secret}\nStore the secret now: it is kept only as a hash and cannot be shown again.`,
      )
    }),
  )

clientCommand
  .command('list')
  .description('list clients (never their secrets)')
  .action(() =>
    withDatabase(async (db) => {
      console.table(await clients.listClients(db))
    }),
  )

clientCommand
  .command('disable <clientId>')
  .description('refuse tokens and requests of a client')
  .action((clientId: string) =>
    withDatabase(async (db) => {
      await clients.setEnabled(db, clientId, false, recordClientChangeAudited)
      console.log(`client ${clientId} disabled`)
    }),
  )

clientCommand
  .command('enable <clientId>')
  .description('allow a disabled client again')
  .action((clientId: string) =>
    withDatabase(async (db) => {
      await clients.setEnabled(db, clientId, true, recordClientChangeAudited)
      console.log(`client ${clientId} enabled`)
    }),
  )

clientCommand
  .command('rotate-secret <clientId>')
  .description('issue a new secret; the old one stops working')
  .action((clientId: string) =>
    withDatabase(async (db) => {
      const { secret } = await clients.rotateSecret(db, clientId, recordClientChangeAudited)
      console.log(
        `client_id:     ${clientId}\nclient_secret: ${secret}\nStore the secret now: it is kept only as a hash and cannot be shown again.`,
      )
    }),
  )

const referenceData = program.command('reference-data').description('reference and classification datasets')

referenceData
  .command('load <dataset> <file>')
  .description('load a release (CSV or TSV) as a diff against what is held')
  .action((dataset: string, file: string) =>
    withDatabase(async (db) => {
      const summary = await loadReleaseFile(db, dataset, file)
      if (summary.sysEffectiveFrom)
        await auditCli(db, 'reference.release.publish', { recordType: 'reference-dataset', recordId: dataset })
      console.log(
        `${dataset}: ${summary.created} created, ${summary.updated} updated, ${summary.endDated} end-dated, ${summary.unchanged} unchanged` +
          (summary.sysEffectiveFrom ? ` (sysEffectiveFrom ${summary.sysEffectiveFrom})` : ' (nothing changed)'),
      )
    }),
  )

referenceData
  .command('list')
  .description('the datasets and where they come from')
  .action(() => {
    console.table(datasets.map((d) => ({ name: d.name, kind: d.kind, source: d.source })))
  })

const DAY = /^\d{4}-\d{2}-\d{2}$/
const audit = program.command('audit').description('the audit trail (issue 33)')

audit
  .command('verify')
  .description(
    "recompute each day's hash chains (every lane); exit 1 naming the first broken lane and entry of each broken day",
  )
  .requiredOption('--from <day>', 'first UTC day, YYYY-MM-DD')
  .option('--to <day>', 'last UTC day, YYYY-MM-DD (default: --from)')
  .action((options: { from: string; to?: string }) =>
    withDatabase(
      async (db) => {
        const to = options.to ?? options.from
        for (const day of [options.from, to])
          if (!DAY.test(day) || Number.isNaN(Date.parse(day)))
            throw new AuditInputError(`not a day (YYYY-MM-DD): ${day}`)
        const days = await verifyAudit(db, options.from, to)
        let broken = 0
        for (const d of days) {
          // One line a day: its lanes (chains) together; a broken day names its first broken lane and
          // entry, and how many of its lanes are broken.
          if (d.broken) {
            broken++
            const others = d.brokenLanes.length > 1 ? ` (${d.brokenLanes.length} of ${d.lanes} lanes broken)` : ''
            console.log(
              `${d.day}: BROKEN in lane ${d.broken.lane} at entry #${d.broken.seq}${d.broken.id ? ` (id ${d.broken.id})` : ''}: ${d.broken.detail}${others}`,
            )
          } else
            console.log(`${d.day}: ${d.entries} entries in ${d.lanes} lane${d.lanes === 1 ? '' : 's'}, chains intact`)
        }
        if (days.length === 0) console.log(`no audit entries from ${options.from} to ${to}`)
        if (broken > 0) {
          console.log(`${broken} of ${days.length} days broken: the audit trail was changed outside the service`)
          process.exitCode = 1
        }
        // No migration: verification only reads, so it runs against a read-only replica too.
      },
      { migrate: false },
    ),
  )

class AuditInputError extends Error {}

try {
  await program.parseAsync()
} catch (error) {
  // What the operator can fix is one line; anything else is a bug, and its stack helps.
  if (error instanceof ConfigError) {
    console.error(error.message)
    process.exitCode = 2
  } else {
    const expected =
      error instanceof clients.ClientInputError ||
      error instanceof ReleaseFileError ||
      error instanceof StartupError ||
      error instanceof AuditInputError
    console.error(expected ? `error: ${error.message}` : error)
    process.exitCode = 1
  }
}
