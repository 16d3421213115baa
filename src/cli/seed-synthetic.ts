// npm run seed:synthetic -- --students 10000 [--rtos 90001,90002,91001] [--jurisdiction NSW]
// Fills the configured database (DATABASE_URL, or the embedded one in DATA_DIR) with a synthetic held
// dataset: per student a program enrolment and three subject enrolments, shared programs, subjects,
// offerings and locations, lifecycles over 2026, and voids. About 5 held records per student per RTO.
import { Command } from 'commander'
import { SingleBar, Presets } from 'cli-progress'
import { loadConfig } from '../config/config.ts'
import { openDatabase } from '../platform/db/database.ts'
import { migrateToLatest } from '../platform/db/migrate.ts'
import { seedSynthetic } from './synthetic-data.ts'

const program = new Command('seed:synthetic')
  .description('create a synthetic held dataset in the configured database')
  .option('--students <n>', 'students per RTO', (v) => Number.parseInt(v, 10), 1000)
  .option('--rtos <list>', 'comma-separated RTO identifiers', '90001,90002,91001')
  .option('--jurisdiction <code>', 'jurisdiction of the batches', 'NSW')
  .option('--batch-records <n>', 'records per batch', (v) => Number.parseInt(v, 10), 20000)
  .option(
    '--busy-student <n>',
    'subject enrolments of one busy student in the first RTO',
    (v) => Number.parseInt(v, 10),
    200,
  )
  .showHelpAfterError()
program.parse()
const options = program.opts<{
  students: number
  rtos: string
  jurisdiction: string
  batchRecords: number
  busyStudent: number
}>()
if (!Number.isInteger(options.students) || options.students < 1)
  program.error('--students must be a positive whole number')

const handle = await openDatabase(loadConfig().database)
try {
  await migrateToLatest(handle.db)
  const rtos = options.rtos
    .split(',')
    .map((rto) => rto.trim())
    .filter(Boolean)
  const expected = rtos.length * options.students * 5 + options.busyStudent
  const bar = new SingleBar(
    { format: 'held records {bar} {value}/{total} ({eta}s left)', etaBuffer: 20 },
    Presets.shades_classic,
  )
  bar.start(expected, 0)
  const started = performance.now()
  const summary = await seedSynthetic(handle.db, {
    students: options.students,
    rtos,
    jurisdiction: options.jurisdiction,
    batchRecords: options.batchRecords,
    busyStudentEnrolments: options.busyStudent,
    onProgress: (held) => bar.update(Math.min(held, expected)),
  })
  bar.update(expected)
  bar.stop()
  console.log(
    `${summary.records} held record versions (${summary.voided} voids) for RTOs ${rtos.join(', ')} in ${((performance.now() - started) / 1000).toFixed(1)} s; busy student ${summary.busyStudentUID}`,
  )
} finally {
  await handle.close()
}
