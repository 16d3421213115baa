// Lifecycle states and dates derived from NAT activity: a subject enrolment's from its outcome and
// activity dates, a program enrolment's from its subject enrolments and its completion, and the
// outcome written back for an enrolment that has none.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { type LifecycleStateRecord, natToResources } from '../src/index.ts'
import {
  outcomeFromLifecycle,
  programLifecycleOf,
  type SubjectOfProgram,
  subjectLifecycleOf,
} from '../src/mapping/lifecycle.ts'
import { fixtureFileSet, RTO, readFileSet } from './support/nat-fixture.ts'
import { seedCodes } from './support/reference-data.ts'
import { bodyOf, keys, mapFileSet } from './support/mapping.ts'

const START = '2026-02-02'
const END = '2026-05-29'
const commenced = (date: string): LifecycleStateRecord => ({ studentStatus: 'Commenced', studentActivityDate: date })
const registered = (date: string): LifecycleStateRecord => ({ studentStatus: 'Registered', studentActivityDate: date })
const cancelled = (date: string, reason = 'Formal_withdrawal'): LifecycleStateRecord => ({
  studentStatus: 'Cancelled',
  studentActivityDate: date,
  studentStatusReason: reason,
})

describe('a subject enrolment lifecycle, from the NAT00120 outcome and dates', () => {
  const table: [outcome: string, meaning: string, states: LifecycleStateRecord[]][] = [
    ['20', 'competency achieved', [commenced(START)]],
    ['30', 'competency not achieved', [commenced(START)]],
    ['40', 'withdrawn: cancelled on the end date', [commenced(START), cancelled(END)]],
    ['41', 'incomplete due to RTO closure: not a withdrawal', [commenced(START)]],
    ['51', 'RPL granted', [commenced(START)]],
    ['52', 'RPL not granted', [commenced(START)]],
    ['60', 'credit transfer', [commenced(START)]],
    ['61', 'superseded subject', [commenced(START)]],
    ['70', 'continuing', [commenced(START)]],
    ['81', 'non-assessable, completed', [commenced(START)]],
    ['82', 'non-assessable, not completed', [commenced(START)]],
    ['85', 'not yet started: registered on the start date', [registered(START)]],
  ]
  for (const [outcome, meaning, states] of table) {
    it(`${outcome} (${meaning})`, () => {
      assert.deepEqual(
        subjectLifecycleOf(outcome, START, END, 'Formal_withdrawal').map(({ state }) => state),
        states,
      )
    })
  }

  it('dates each state by the activity date it took, so the origin points at that field', () => {
    assert.deepEqual(
      subjectLifecycleOf('40', START, END, 'Informal_withdrawal').map(({ dateField, state }) => [
        state.studentStatus,
        dateField,
        state.studentStatusReason,
      ]),
      [
        ['Commenced', 'activityStartDate', undefined],
        ['Cancelled', 'activityEndDate', 'Informal_withdrawal'],
      ],
    )
  })
})

describe('a program enrolment lifecycle, from its subject enrolments', () => {
  const subject = (activityStartDate: string, ...lifecycle: LifecycleStateRecord[]): SubjectOfProgram => ({
    activityStartDate,
    lifecycle,
  })
  const table: [
    case_: string,
    subjects: SubjectOfProgram[],
    completed: boolean,
    states: [LifecycleStateRecord, number][],
  ][] = [
    [
      'commenced on the earliest date a subject commenced',
      [subject('2026-03-01', commenced('2026-03-01')), subject('2026-02-01', commenced('2026-02-01'))],
      false,
      [[commenced('2026-02-01'), 1]],
    ],
    [
      'a subject not yet started does not move the commencement',
      [subject('2026-01-10', registered('2026-01-10')), subject('2026-02-01', commenced('2026-02-01'))],
      false,
      [[commenced('2026-02-01'), 1]],
    ],
    [
      'registered on the earliest start when no subject has commenced',
      [subject('2026-07-01', registered('2026-07-01')), subject('2026-06-01', registered('2026-06-01'))],
      false,
      [[registered('2026-06-01'), 1]],
    ],
    [
      'cancelled when every subject is withdrawn, on the latest withdrawal',
      [
        subject('2026-02-01', commenced('2026-02-01'), cancelled('2026-03-15')),
        subject('2026-02-01', commenced('2026-02-01'), cancelled('2026-04-30', 'Informal_withdrawal')),
      ],
      false,
      [
        [commenced('2026-02-01'), 0],
        [cancelled('2026-04-30', 'Informal_withdrawal'), 1],
      ],
    ],
    [
      'not cancelled while one subject goes on',
      [
        subject('2026-02-01', commenced('2026-02-01'), cancelled('2026-03-15')),
        subject('2026-02-01', commenced('2026-02-01')),
      ],
      false,
      [[commenced('2026-02-01'), 0]],
    ],
    [
      'not cancelled when the program is completed',
      [subject('2026-02-01', commenced('2026-02-01'), cancelled('2026-03-15'))],
      true,
      [[commenced('2026-02-01'), 0]],
    ],
  ]
  for (const [case_, subjects, completed, states] of table) {
    it(case_, () => {
      assert.deepEqual(
        programLifecycleOf(subjects, completed).map(({ state, subject }) => [state, subject]),
        states,
      )
    })
  }

  it('has no state without a subject enrolment', () => {
    assert.deepEqual(programLifecycleOf([], false), [])
  })
})

describe('the outcome written for a subject enrolment without one, from its state in force', () => {
  const table: [states: LifecycleStateRecord[], outcome: string][] = [
    [[commenced(START)], '70'],
    [[commenced(START), cancelled(END)], '40'],
    [[registered(START)], '85'],
    // The latest by date is in force, whatever the order of the list.
    [[cancelled(END), commenced(START)], '40'],
    [[registered(START), commenced(END)], '70'],
  ]
  for (const [states, outcome] of table) {
    it(`${states.map((state) => state.studentStatus).join(', ')} is ${outcome}`, () => {
      assert.equal(outcomeFromLifecycle(states), outcome)
    })
  }
})

describe('lifecycles in a mapped file set', () => {
  const { records } = mapFileSet()
  const lifecycleOf = (type: 'ProgramEnrolment' | 'SubjectEnrolment', uid: string) =>
    bodyOf(records, type, uid).lifecycle

  it('cancels the program enrolment of a student withdrawn from its only subject, with the subject withdrawal date', () => {
    assert.deepEqual(lifecycleOf('ProgramEnrolment', keys.programEnrolment('S002', 'CHC33021')), [
      commenced('2026-05-04'),
      cancelled('2026-05-20'),
    ])
  })

  it('registers the program enrolment whose only subject has not started', () => {
    assert.deepEqual(lifecycleOf('ProgramEnrolment', keys.programEnrolment('S003', 'CHC33021')), [
      registered('2026-07-01'),
    ])
  })

  it('commences a completed program enrolment and leaves it so: completion is programCompletion, not a state', () => {
    assert.deepEqual(lifecycleOf('ProgramEnrolment', keys.programEnrolment('S001', 'BSB40120')), [
      commenced('2026-02-02'),
    ])
  })

  it('cancels a withdrawn subject outside a program with the reason given for withdrawals', () => {
    const uid = keys.subjectEnrolment({
      deliveryLocationIdentifier: 'GEEL02',
      clientIdentifier: 'S002',
      subjectIdentifier: 'HLTAID011',
      programIdentifier: '',
      activityStartDate: '2026-04-01',
    })
    assert.deepEqual(lifecycleOf('SubjectEnrolment', uid), [commenced('2026-04-01'), cancelled('2026-04-01')])
    const informal = natToResources(readFileSet(fixtureFileSet()), {
      rtoCode: RTO,
      codes: seedCodes,
      withdrawalReason: 'Informal_withdrawal',
    })
    assert.deepEqual(bodyOf(informal.records, 'SubjectEnrolment', uid).lifecycle, [
      commenced('2026-04-01'),
      cancelled('2026-04-01', 'Informal_withdrawal'),
    ])
  })
})
