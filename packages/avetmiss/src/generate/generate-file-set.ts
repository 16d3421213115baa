// generateNatFileSet: a believable AVETMISS 8.0 NAT file set of any size, the same for the same seed,
// with the faults asked for planted in it and listed as the problems they cause.
import { natFileName } from '../file-names.ts'
import { NAT_LINE_END } from '../format-file.ts'
import { NAT_FILE_IDS, type NatFileId } from '../layouts/index.ts'
import type { ReferenceDatasets } from '../mapping/code-translator.ts'
import type { NatEntry } from '../read-file-set.ts'
import { buildCleanSet } from './clean-set.ts'
import { CodePools } from './code-pool.ts'
import {
  checkFaultRequests,
  extraActivityLines,
  FaultPlanter,
  type NatFaultRequest,
  type PlantedNatFault,
} from './faults.ts'
import { Random } from './random.ts'

export interface GenerateNatFileSetOptions {
  /** NAT00120 lines in the set, the extra lines of faults included. */
  activities: number
  /** The same seed (and options) gives the same files, byte for byte. */
  seed: string | number
  /** The RTO's national code: the training organisation identifier of every line that has one. */
  rtoCode: string
  /**
   * The reference datasets' records by dataset name, as GET /reference-data/{dataset} returns them
   * (or the service's seed files): every code written is the `avetmissCode` (or, for a classification,
   * the `code`) of an Active record.
   */
  referenceData: ReferenceDatasets
  /** Faults to plant, each kind with a count. */
  faults?: readonly NatFaultRequest[]
  /** The reporting year (default 2026): every activity date is in it. */
  year?: number
  /**
   * The day the set is as of, in `year` (default 31 December): results, withdrawals and completions
   * are on or before it; activity ending after it is continuing, or not yet started when it starts
   * after it; nothing starts after the end of its quarter.
   */
  asOf?: string
}

export interface GeneratedNatFileSet {
  /**
   * The files, named NAT000xx.txt, formatted by the package's writer (CRLF, Latin-1), faults included:
   * give them to `readNatEntries`, `writeNatFolder` or `writeNatZip`. Every file is there, NAT00090,
   * NAT00100 and NAT00130 even when empty; NAT00030 holds the nationally recognised programs and
   * NAT00030A the local skill sets.
   */
  entries: NatEntry[]
  /** Lines per file. */
  lineCounts: Record<NatFileId, number>
  /**
   * The faults planted, in file and line order. Each is exactly one problem of `readNatEntries` (a
   * record too long, non-numeric, an impossible date, a required field blank) or of `natToResources`
   * (an unknown code, a client not in NAT00080, a duplicate activity), with the same file, line, field
   * and value, and the set has no other problem.
   */
  faults: PlantedNatFault[]
}

/**
 * A NAT file set of `activities` training activity lines. About one client in eight takes only short
 * courses; the others are in a program enrolment of one to thirteen units, three in ten of them
 * complete it (NAT00130). Pure and synchronous; 100,000 activities take a few seconds.
 */
export function generateNatFileSet(options: GenerateNatFileSetOptions): GeneratedNatFileSet {
  const requests = options.faults ?? []
  checkFaultRequests(requests)
  const year = options.year ?? 2026
  const asOf = options.asOf ?? `${year}-12-31`
  if (!Number.isInteger(year) || year < 1900 || year > 9999) throw new RangeError(`year ${year} is not a year`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || Number.isNaN(Date.parse(asOf)) || !asOf.startsWith(`${year}-`)) {
    throw new RangeError(`asOf ${asOf} must be a date (YYYY-MM-DD) in ${year}`)
  }
  if (!/^\S{1,10}$/.test(options.rtoCode))
    throw new RangeError(`rtoCode "${options.rtoCode}" must be 1 to 10 characters`)
  const extra = extraActivityLines(requests)
  if (!Number.isInteger(options.activities) || options.activities < extra + 1) {
    throw new RangeError(
      `activities must be a whole number of at least ${extra + 1} (the faults add ${extra} lines), not ${options.activities}`,
    )
  }

  const codes = new CodePools(options.referenceData)
  const set = buildCleanSet(new Random(options.seed, 'data'), codes, {
    activities: options.activities - extra,
    rtoCode: options.rtoCode,
    year,
    asOf,
  })
  const planter = new FaultPlanter(new Random(options.seed, 'faults'), codes, set)
  planter.plant(requests)
  const faults = planter.finish()

  const entries: NatEntry[] = []
  const lineCounts = {} as Record<NatFileId, number>
  for (const fileId of NAT_FILE_IDS) {
    const lines = set.lines[fileId] ?? []
    lineCounts[fileId] = lines.length
    if (lines.length === 0 && (fileId === 'NAT00030' || fileId === 'NAT00030A')) continue
    const text = lines.length === 0 ? '' : lines.join(NAT_LINE_END) + NAT_LINE_END
    set.lines[fileId] = [] // let the lines go as soon as they are bytes
    entries.push({ name: natFileName(fileId), bytes: Buffer.from(text, 'latin1') })
  }
  return { entries, lineCounts, faults }
}
