// npm run seed:synthetic -- --students 10000 [--rtos 90001,90002,91001] [--jurisdiction NSW]
// Fills the configured database (DATABASE_URL, or the embedded one in DATA_DIR) with a synthetic held
// dataset: per student a program enrolment and three subject enrolments, shared programs, subjects,
// offerings and locations, lifecycles over 2026, and voids. About 5 held records per student per RTO.
//
// npm run seed:synthetic -- nat --out <folder|file.zip> [--activities 1000] [--seed 1] [--fault kind=count ...]
// Writes a synthetic AVETMISS 8.0 NAT file set instead (generateNatFileSet of @vetrs/avetmiss), with
// the faults asked for, and lists where each fault is. Needs no service and no database: the codes come
// from the reference data's seed files.
import { Command, InvalidArgumentError } from 'commander'

const wholeNumber = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('not a whole number')
  return Number.parseInt(value, 10)
}

const program = new Command('seed:synthetic')
  .description(
    'create a synthetic held dataset in the configured database; `seed:synthetic nat --help` for a NAT file set',
  )
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
  .action(async (options: HeldOptions) => {
    if (!Number.isInteger(options.students) || options.students < 1)
      program.error('--students must be a positive whole number')
    await seedHeldDataset(options)
  })

program
  .command('nat')
  .description('write a synthetic AVETMISS 8.0 NAT file set, with deliberate faults if asked (no database needed)')
  .requiredOption('--out <path>', 'a folder, or a file ending in .zip')
  .option('--activities <n>', 'NAT00120 training activity lines, fault lines included', wholeNumber, 1000)
  .option('--seed <seed>', 'the same seed and options give the same files', '1')
  .option('--rto <code>', 'training organisation identifier', '90001')
  .option('--year <yyyy>', 'reporting year (default: the year of --as-of, or this year)', wholeNumber)
  .option('--as-of <date>', 'the day the set is as of, YYYY-MM-DD (default: today, or 31 December of a past --year)')
  .option(
    '--fault <kind=count>',
    'plant faults, repeatable: record-too-long, non-numeric, impossible-date, missing-required, unknown-code, client-not-in-nat00080, duplicate-activity-key',
    (value: string, previous: string[]) => [...previous, value],
    [] as string[],
  )
  .option('--faults-file <path>', 'also write the planted faults as JSON: [{kind, file, line, field, value}]')
  .showHelpAfterError()
  .action(async (options: NatOptions, command: Command) => {
    await writeNatSet(options, (message) => command.error(message))
  })

interface HeldOptions {
  students: number
  rtos: string
  jurisdiction: string
  batchRecords: number
  busyStudent: number
}

async function seedHeldDataset(options: HeldOptions): Promise<void> {
  // Loaded here, not above: `nat` needs neither a database nor these.
  const [{ SingleBar, Presets }, { loadConfig }, { openDatabase }, { migrateToLatest }, { seedSynthetic }] =
    await Promise.all([
      import('cli-progress'),
      import('../config/config.ts'),
      import('../platform/db/database.ts'),
      import('../platform/db/migrate.ts'),
      import('./synthetic-data.ts'),
    ])
  const handle = await openDatabase(loadConfig(process.env, { signsTokens: false }).database)
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
}

interface NatOptions {
  out: string
  activities: number
  seed: string
  rto: string
  year?: number
  asOf?: string
  fault: string[]
  faultsFile?: string
}

/** How many faults of each kind are listed on the terminal; --faults-file has them all. */
const LISTED_FAULTS = 20

async function writeNatSet(options: NatOptions, fail: (message: string) => never): Promise<void> {
  const [{ writeFile }, avetmiss, { readSeedReferenceData }] = await Promise.all([
    import('node:fs/promises'),
    import('@vetrs/avetmiss'),
    import('../modules/reference-data/index.ts'),
  ])
  const faults = options.fault.map((text) => {
    const match = /^([a-z0-9-]+)(?:=(\d+))?$/.exec(text)
    const kind = match?.[1] as (typeof avetmiss.NAT_FAULT_KINDS)[number] | undefined
    if (!kind || !avetmiss.NAT_FAULT_KINDS.includes(kind)) {
      fail(`--fault ${text}: expected kind=count, the kind one of ${avetmiss.NAT_FAULT_KINDS.join(', ')}`)
    }
    return { kind, count: match?.[2] === undefined ? 1 : Number(match[2]) }
  })
  const today = new Date().toISOString().slice(0, 10)
  const year = options.year ?? Number((options.asOf ?? today).slice(0, 4))
  const asOf = options.asOf ?? (String(year) === today.slice(0, 4) ? today : `${year}-12-31`)

  const started = performance.now()
  let generated: ReturnType<typeof avetmiss.generateNatFileSet>
  try {
    generated = avetmiss.generateNatFileSet({
      activities: options.activities,
      seed: options.seed,
      rtoCode: options.rto,
      referenceData: await readSeedReferenceData(),
      faults,
      year,
      asOf,
    })
  } catch (error) {
    // Options that parse but ask for what cannot be made (more faults than lines that can take them).
    if (!(error instanceof RangeError)) throw error
    console.error(error.message)
    process.exitCode = 1
    return
  }
  const generatedIn = performance.now() - started
  if (options.out.toLowerCase().endsWith('.zip')) await avetmiss.writeNatZip(options.out, generated.entries)
  else await avetmiss.writeNatFolder(options.out, generated.entries)
  if (options.faultsFile) await writeFile(options.faultsFile, `${JSON.stringify(generated.faults, null, 2)}\n`)

  const counts = generated.lineCounts
  console.log(
    `NAT file set for RTO ${options.rto}, ${year} as of ${asOf}, seed ${options.seed}: ${[
      [counts.NAT00120, 'activity', 'activities'],
      [counts.NAT00080, 'client', 'clients'],
      [counts.NAT00030 + counts.NAT00030A, 'program', 'programs'],
      [counts.NAT00060, 'subject', 'subjects'],
      [counts.NAT00020, 'delivery location', 'delivery locations'],
      [counts.NAT00130, 'completion', 'completions'],
    ]
      .map(([n, one, many]) => `${n} ${n === 1 ? one : many}`)
      .join(', ')}; generated in ${(generatedIn / 1000).toFixed(1)} s, written to ${options.out}`,
  )
  if (generated.faults.length === 0) return
  console.log(`${generated.faults.length} fault(s) planted:`)
  for (const kind of new Set(faults.map((fault) => fault.kind))) {
    const ofKind = generated.faults.filter((fault) => fault.kind === kind)
    for (const fault of ofKind.slice(0, LISTED_FAULTS)) {
      const field = fault.field ? ` field ${fault.field}` : ''
      const value = fault.value === undefined ? '' : ` "${fault.value}"`
      console.log(`  ${fault.kind.padEnd(24)} ${fault.file} line ${fault.line}${field}${value}`)
    }
    if (ofKind.length > LISTED_FAULTS) console.log(`  ... and ${ofKind.length - LISTED_FAULTS} more ${kind}`)
  }
}

await program.parseAsync()
