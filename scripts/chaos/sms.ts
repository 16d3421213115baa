// One simulated student management system: an RTO's own client (its own credentials) driving the
// standard workflows through the load balancer with the SDK, one after another, until its plan is done.
// The SDK retries what it retries (429 always; 503, lost connections and timeouts for every request:
// uploads are safe to repeat by UID, and every other POST carries one Idempotency-Key across its
// attempts, so a submit or a declaration whose answer was lost is sent again and answered with its
// first answer, the work done once). Past that, the SMS
// repeats the call after a pause, as a new request: a submit that had committed then answers 409
// batch-submitted, which counts as committed without an answer; a declaration repeated is the same
// declaration again (the latest supersedes). It reads nothing back to find out what happened. What
// the service acknowledged goes into the ledger.
import {
  ConflictReason,
  ServiceError,
  Vetrs,
  type ReferenceRecord,
  type ReferenceStore,
  type ValidationResult,
} from '../../packages/client/src/index.ts'
import { observingFetch, type Ledger, type Observation } from './ledger.ts'
import {
  asRecord,
  bodyHash,
  catalogue,
  catalogueRecords,
  identityOf,
  nextVersion,
  recordsOf,
  REPORTING_PERIOD,
  studentSet,
  withBadUsi,
  type Body,
  type Catalogue,
  type Random,
  type StudentSet,
} from './records.ts'

export const WORKFLOWS = [
  'submit-bulk',
  'submit-single',
  'fix-and-resubmit',
  'update',
  'void',
  'discard',
  'reconcile',
  'assess-declare',
  'reference-sync',
] as const
export type Workflow = 'setup' | (typeof WORKFLOWS)[number]

const JURISDICTION = 'NSW' as const
const DATASETS = ['study-reason', 'funding-source-national', 'outcome-national', 'classification/country']

export interface SmsOptions {
  rto: string
  clientId: string
  clientSecret: string
  baseUrl: string
  random: Random
  ledger: Ledger
  clock: () => number
  observe: (o: Observation) => void
  log: (line: string) => void
  /** Students in a bulk submission (a range drawn per workflow). */
  bulkStudents: [number, number]
  /**
   * New workflows start only until then (ms on the run's clock); the one running finishes. A function:
   * the load goes on past its planned end until every fault kind has been injected under it.
   */
  loadEndsAt: () => number
  /** No call is repeated past then: the SMS gives up and says so (a failed check). */
  giveUpAt: () => number
}

export interface SmsReport {
  rto: string
  planned: Workflow[]
  completed: Workflow[]
  failed?: string
  /** Failed validation results listed twice in one answer of the API. */
  duplicateResultsSeen: number
}

class GaveUp extends Error {}

export class Sms {
  readonly vetrs: Vetrs
  readonly #o: SmsOptions
  readonly #catalogue: Catalogue
  /** Students held (submitted), with the version last submitted of each record. */
  readonly held: StudentSet[] = []
  readonly voided = new Set<string>()
  #students = 0
  #version = 1
  #referenceCopy = new Map<string, Map<string, ReferenceRecord>>()
  readonly report: SmsReport

  constructor(options: SmsOptions) {
    this.#o = options
    this.vetrs = new Vetrs({
      baseUrl: options.baseUrl,
      credentials: { clientId: options.clientId, clientSecret: options.clientSecret },
      appInfo: { name: 'ChaosSMS', version: '1.0.0' },
      timeoutMs: 30_000,
      fetch: observingFetch(options.rto, options.clock, options.observe),
    })
    this.#catalogue = catalogue(options.random)
    this.report = { rto: options.rto, planned: ['setup'], completed: [], duplicateResultsSeen: 0 }
  }

  /** The plan: setup, then every workflow once in a seeded order, then seeded picks until the load ends. */
  async run(): Promise<SmsReport> {
    const r = this.#o.random
    const firstRound = [...WORKFLOWS].sort(() => r.next() - 0.5)
    try {
      await this.#do('setup')
      for (let i = 0; ; i++) {
        if (i >= firstRound.length && this.#o.clock() >= this.#o.loadEndsAt()) break
        const workflow = i < firstRound.length ? firstRound[i]! : r.pick(WORKFLOWS)
        this.report.planned.push(workflow)
        await this.#do(workflow)
      }
    } catch (error) {
      this.report.failed = `${(error as Error).message}`
      this.#o.log(`rto ${this.#o.rto}: stopped: ${this.report.failed}`)
    }
    return this.report
  }

  async #do(workflow: Workflow): Promise<void> {
    const started = this.#o.clock()
    switch (workflow) {
      case 'setup':
        await this.#submit(
          'setup',
          [...catalogueRecords(this.#catalogue), ...this.#newStudents(8).flatMap(recordsOf)],
          {
            single: 6,
          },
        )
        break
      case 'submit-bulk': {
        const students = this.#newStudents(this.#o.random.int(...this.#o.bulkStudents))
        // Two students of the batch share name and date of birth: a Warning (BRTS03100, possible
        // duplicate student) that does not block, so the submitted batch keeps validation results.
        const [first, last] = [students[0]!, students.at(-1)!]
        if (first !== last) last.student = { ...last.student, familyName: first.student.familyName }
        await this.#submit(workflow, students.flatMap(recordsOf))
        break
      }
      case 'submit-single': {
        const students = this.#newStudents(this.#o.random.int(2, 4))
        await this.#submit(workflow, students.flatMap(recordsOf), { single: Number.POSITIVE_INFINITY })
        break
      }
      case 'fix-and-resubmit':
        await this.#fixAndResubmit()
        break
      case 'update':
        await this.#update()
        break
      case 'void':
        await this.#void()
        break
      case 'discard':
        await this.#discard()
        break
      case 'reconcile':
        await this.#reconcile()
        break
      case 'assess-declare':
        await this.#assessAndDeclare()
        break
      case 'reference-sync':
        await this.#referenceSync()
        break
    }
    this.report.completed.push(workflow)
    this.#o.ledger.count(`workflow ${workflow}`)
    this.#o.log(`rto ${this.#o.rto}: ${workflow} done in ${((this.#o.clock() - started) / 1000).toFixed(1)} s`)
  }

  #newStudents(count: number): StudentSet[] {
    return Array.from({ length: count }, () => studentSet(this.#o.random, this.#catalogue, ++this.#students))
  }

  // ---- the steps, each safe under faults ----

  /**
   * Repeats a call while it fails for a reason a fault explains (no answer, 5xx, 429) after the SDK's
   * own retries: reads and uploads are safe to repeat, and a POST that may have taken effect was
   * already retried by the SDK with its idempotency key; a repeat here is a new request.
   */
  async #idempotent<T>(what: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call()
      } catch (error) {
        if (!transient(error)) throw error
        if (this.#o.clock() > this.#o.giveUpAt())
          throw new GaveUp(`${what}: still failing when the run's time was up (${(error as Error).message})`)
        await pause(Math.min(5000, 500 * attempt))
        this.#o.ledger.count('sms repeats (after the SDK gave up)')
      }
    }
  }

  async #createBatch(purpose: string): Promise<string> {
    // The SDK repeats it with its idempotency key, so a lost answer makes no second batch; a repeat by
    // the SMS after the SDK gave up may: it stays empty and NotSubmitted, unknown to this SMS.
    const created = await this.#idempotent('create batch', () => this.vetrs.createBatch(JURISDICTION))
    const token = created.transactionBatchToken
    this.#o.ledger.batches.set(token, { rto: this.#o.rto, jurisdiction: JURISDICTION, token, purpose })
    this.#o.ledger.count('create batch')
    return token
  }

  async #uploadSingle(token: string, records: Body[]): Promise<void> {
    let next = 0
    const worker = async () => {
      while (next < records.length) {
        const record = records[next++]!
        await this.#idempotent('upload', () => this.vetrs.upload(JURISDICTION, token, asRecord(record)))
        const { resourceType, uid } = identityOf(record)
        this.#o.ledger.upload({
          rto: this.#o.rto,
          batch: token,
          resourceType,
          uid,
          hash: bodyHash(record),
          via: 'single',
        })
      }
    }
    await Promise.all([worker(), worker(), worker()])
  }

  async #uploadBulk(token: string, records: Body[]): Promise<void> {
    if (records.length === 0) return
    await this.#idempotent('bulk upload', () => this.vetrs.uploadMany(JURISDICTION, token, records.map(asRecord)))
    this.#o.ledger.count('bulk upload request')
    for (const record of records) {
      const { resourceType, uid } = identityOf(record)
      this.#o.ledger.upload({ rto: this.#o.rto, batch: token, resourceType, uid, hash: bodyHash(record), via: 'bulk' })
    }
  }

  /** Validation requested, waited for and its failed results read; repeated as a whole after a fault. */
  async #validate(token: string): Promise<{ blocking: ValidationResult[]; all: ValidationResult[] }> {
    const outcome = await this.#idempotent('validate', () =>
      this.vetrs.validate(JURISDICTION, token, { maxWaitMs: 120_000 }),
    )
    this.#o.ledger.count('validate')
    const all = [...outcome.blocking, ...outcome.nonBlocking].flatMap((group) => group.results)
    const keys = all.map((r) => `${r.technicalRuleId}|${r.resourceUID}|${r.accessPath.join(',')}|${r.message}`)
    const duplicates = keys.length - new Set(keys).size
    this.report.duplicateResultsSeen += duplicates
    const entry = this.#o.ledger.batches.get(token)!
    entry.validationResults = all.length
    entry.duplicateResultsSeen = duplicates
    return { blocking: outcome.blocking.flatMap((group) => group.results), all }
  }

  /**
   * Submit. A lost answer is the SDK's to recover (the same request again, answered with the first
   * answer); a 409 batch-submitted means a submit of ours that the SMS repeated after the SDK gave up
   * had committed without an answer reaching it.
   */
  async #submitBatch(token: string): Promise<void> {
    const entry = this.#o.ledger.batches.get(token)!
    for (;;) {
      try {
        const answer = await this.#idempotent('submit', () => this.vetrs.submitBatch(JURISDICTION, token))
        if (answer.status !== 'Submitted') throw new Error(`submit answered ${JSON.stringify(answer).slice(0, 200)}`)
        entry.submitted = { records: answer.numberOfRecordsSubmitted, at: this.#o.clock() }
        this.#o.ledger.count('submit (200 Submitted)')
        break
      } catch (error) {
        // An earlier submit of ours that got no answer had committed.
        if (error instanceof ServiceError && error.reason === ConflictReason.BatchSubmitted) {
          entry.submittedUnacknowledged = true
          this.#o.ledger.count('submit (committed, no answer)')
          break
        }
        // A validation taken over by another worker after its own died, still running: wait, then validate again.
        if (
          error instanceof ServiceError &&
          (error.reason === ConflictReason.ValidationPending || error.reason === ConflictReason.ValidationStale)
        ) {
          await this.#validate(token)
          continue
        }
        throw error
      }
    }
    await this.#idempotent('await reconciliation', () =>
      this.vetrs.awaitReconciliation(JURISDICTION, token, { maxWaitMs: 120_000 }),
    )
  }

  async #submit(purpose: string, records: Body[], { single = 0 }: { single?: number } = {}): Promise<string> {
    const token = await this.#createBatch(purpose)
    await this.#uploadSingle(token, records.slice(0, single))
    await this.#uploadBulk(token, records.slice(single))
    const { blocking } = await this.#validate(token)
    if (blocking.length > 0)
      throw new Error(`${purpose}: unexpected blocking results: ${blocking.map((r) => r.message).join('; ')}`)
    await this.#submitBatch(token)
    this.#remember(records)
    return token
  }

  /** What is held now, for later workflows (updates, voids, reconciliation). */
  #remember(records: Body[]): void {
    for (const record of records) {
      const { resourceType, uid } = identityOf(record)
      if (record.isVoided === true) {
        this.voided.add(uid)
        continue
      }
      const set = this.held.find((s) => s.student.studentUID === (record.studentUID ?? ''))
      if (resourceType === 'Student') {
        if (set) set.student = record
        else this.held.push({ student: record, programEnrolment: {}, subjectEnrolment: {} })
      } else if (set && resourceType === 'ProgramEnrolment') set.programEnrolment = record
      else if (set && resourceType === 'SubjectEnrolment') set.subjectEnrolment = record
    }
  }

  async #fixAndResubmit(): Promise<void> {
    const [wrong, right] = this.#newStudents(2) as [StudentSet, StudentSet]
    const token = await this.#createBatch('fix-and-resubmit')
    const bad = withBadUsi(wrong.student)
    await this.#uploadBulk(token, [bad, wrong.programEnrolment, wrong.subjectEnrolment, ...recordsOf(right)])
    const first = await this.#validate(token)
    const refusals = first.blocking.filter((r) => r.technicalRuleId === 'BRTS01200')
    if (refusals.length !== 1)
      throw new Error(
        `fix-and-resubmit: expected one BRTS01200 Error, got ${JSON.stringify(first.blocking).slice(0, 300)}`,
      )
    await this.#uploadSingle(token, [wrong.student])
    const second = await this.#validate(token)
    if (second.blocking.length > 0) throw new Error('fix-and-resubmit: still blocked after the fix')
    await this.#submitBatch(token)
    this.#remember([...recordsOf(wrong), ...recordsOf(right)])
  }

  async #update(): Promise<void> {
    const candidates = this.held.filter((set) => !this.#isVoided(set))
    const chosen = candidates.sort(() => this.#o.random.next() - 0.5).slice(0, 3)
    const version = ++this.#version
    const records = chosen.flatMap((set) => [
      nextVersion(set.student, version),
      nextVersion(set.programEnrolment, version),
    ])
    await this.#submit('update', records)
  }

  /**
   * Standard workflow 3: a student's program enrolment voided as a duplicate, and the subject enrolment
   * in it voided with it as an orphan (it points at the program enrolment); the student stays.
   */
  async #void(): Promise<void> {
    const candidate = this.held.find(
      (set) => set.programEnrolment.programEnrolmentUID !== undefined && !this.#isVoided(set),
    )
    if (!candidate) return
    const programUid = String(candidate.programEnrolment.programEnrolmentUID)
    const subjectUid = String(candidate.subjectEnrolment.subjectEnrolmentUID)
    // Confirm they are held first (the held state reads the replica: it may lag a moment).
    for (const [resource, uid] of [
      [this.vetrs.programEnrolments, programUid],
      [this.vetrs.subjectEnrolments, subjectUid],
    ] as const) {
      for (let i = 0; ; i++) {
        const state = await this.#idempotent('held state', () => resource.heldState(uid))
        if (state.stateInSubmission === 'In submission') break
        if (i >= 40) throw new Error(`void: ${uid} is ${state.stateInSubmission}, not In submission`)
        await pause(250)
      }
    }
    const token = await this.#submit('void', [
      { ...candidate.programEnrolment, isVoided: true, voidedReason: 'remove_duplicate_record' },
      { ...candidate.subjectEnrolment, isVoided: true, voidedReason: 'remove_orphaned_record' },
    ])
    this.#o.ledger.voids.push(
      { rto: this.#o.rto, batch: token, resourceType: 'ProgramEnrolment', uid: programUid },
      { rto: this.#o.rto, batch: token, resourceType: 'SubjectEnrolment', uid: subjectUid },
    )
    this.#o.ledger.count('void (records)', 2)
  }

  #isVoided(set: StudentSet): boolean {
    return (
      this.voided.has(String(set.programEnrolment.programEnrolmentUID)) ||
      this.voided.has(String(set.subjectEnrolment.subjectEnrolmentUID))
    )
  }

  async #discard(): Promise<void> {
    const token = await this.#createBatch('discard')
    await this.#uploadSingle(token, recordsOf(this.#newStudents(1)[0]!))
    await this.#idempotent('discard batch', async () => {
      try {
        await this.vetrs.discardBatch(JURISDICTION, token)
      } catch (error) {
        // A DELETE repeated after one that took effect without an answer.
        if (!(error instanceof ServiceError && error.status === 404)) throw error
      }
    })
    this.#o.ledger.batches.get(token)!.discarded = true
    this.#o.ledger.count('discard batch')
  }

  async #reconcile(): Promise<void> {
    const mine = this.held
      .filter((set) => !this.#isVoided(set))
      .map((set) => set.subjectEnrolment)
      .filter((e) => e.subjectEnrolmentUID !== undefined)
      .map((e) => ({
        resourceUID: String(e.subjectEnrolmentUID),
        changeTrackingIdentifier: String(e.changeTrackingIdentifier),
      }))
    if (mine.length === 0) return
    const outcome = await this.#idempotent('reconcile', () =>
      this.vetrs.reconcile({ resourceType: 'SubjectEnrolment', reportingPeriod: REPORTING_PERIOD, records: mine }),
    )
    this.#o.ledger.count('reconcile (uid-match and search-by-period)')
    // Read from the replica, so a moment behind: noted, and checked strictly once the run has settled.
    const off = outcome.notHeld.length + outcome.versionDiffers.length + outcome.heldOnly.length
    if (off > 0) this.#o.ledger.count('reconcile: differences seen while running (replica lag)')
  }

  async #assessAndDeclare(): Promise<void> {
    const period = Number(REPORTING_PERIOD)
    const assessed = await this.#idempotent('assess', async () => {
      const outcome = await this.vetrs.assess(JURISDICTION, period, { maxWaitMs: 120_000 })
      return outcome
    })
    this.#o.ledger.assessmentsRequested.set(
      this.#o.rto,
      (this.#o.ledger.assessmentsRequested.get(this.#o.rto) ?? 0) + 1,
    )
    this.#o.ledger.count('assess')
    if (assessed.blocking.length > 0)
      throw new Error(`assess: blocking outcomes ${JSON.stringify(assessed.blocking).slice(0, 300)}`)
    const userName = `Chaos ${this.#o.rto} ${this.#o.clock()}`
    const request = {
      reportingPeriodNumber: period,
      jurisdiction: JURISDICTION,
      declarationType: 'Declaration' as const,
      RTOAcceptanceOfDeclaration: true as const,
      RTOUserName: userName,
      RTOUserEmailAddress: 'chaos@example.edu.au',
    }
    for (;;) {
      try {
        await this.#idempotent('declare', () => this.vetrs.declare(request))
        this.#o.ledger.declarations.push({
          rto: this.#o.rto,
          jurisdiction: JURISDICTION,
          period,
          userName,
          at: this.#o.clock(),
        })
        this.#o.ledger.count('declare (200)')
        return
      } catch (error) {
        // Another of this RTO's submissions landed after the assessment started: assess again, then declare.
        if (error instanceof ServiceError && error.reason === ConflictReason.AssessmentNotValidated) {
          await this.#idempotent('assess again', () => this.vetrs.assess(JURISDICTION, period, { maxWaitMs: 120_000 }))
          continue
        }
        throw error
      }
    }
  }

  async #referenceSync(): Promise<void> {
    const dataset = this.#o.random.pick(DATASETS)
    const copy = this.#referenceCopy.get(dataset) ?? new Map<string, ReferenceRecord>()
    this.#referenceCopy.set(dataset, copy)
    let watermark: string | undefined
    const store: ReferenceStore = {
      readWatermark: async () => watermark,
      upsert: async (_, records) => {
        for (const record of records) copy.set(record.recordId, record)
      },
      writeWatermark: async (_, value) => {
        watermark = value
      },
    }
    const outcome = await this.#idempotent('reference sync', () => this.vetrs.syncReferenceData(dataset, store))
    if (outcome.records === 0) throw new Error(`reference sync of ${dataset}: no records`)
    this.#o.ledger.count('reference sync')
  }
}

/**
 * A failure a fault explains: no answer, a 5xx, a 429 the SDK's retries did not outlast, or a request
 * of ours still held by a killed API process's claim on its idempotency key (until the claim lapses).
 */
function transient(error: unknown): boolean {
  if (error instanceof ServiceError)
    return (
      error.status >= 500 ||
      error.status === 429 ||
      error.problem?.type?.endsWith('/problems/idempotency-key-in-progress') === true
    )
  const name = (error as Error)?.name
  return name === 'NetworkError' || name === 'TimeoutError' || name === 'WorkflowError'
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
