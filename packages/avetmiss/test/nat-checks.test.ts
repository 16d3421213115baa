// The NAT checks (checks/nat-checks.ts), each on a hand-built set that breaks it
// (test/fixtures/published-layouts/checks-broken) and on the national set, which passes them all.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { checkNatSet, NAT_CHECKS } from '../src/index.ts'
import { readCase } from './support/published-layouts.ts'

const AS_OF = '2026-03-01'

describe('NAT checks before upload', () => {
  it('the national hand-built set passes every check', () => {
    assert.deepEqual(checkNatSet(readCase('national'), { asOf: AS_OF }), [])
  })

  it('the set built to break them gives each check at its file, line, field and value, with its level', () => {
    const read = readCase('checks-broken')
    assert.deepEqual(read.problems, [])
    const found = checkNatSet(read, { asOf: AS_OF })
    assert.deepEqual(
      found.map(({ check, level, file, line, field, value }) => ({ check, level, file, line, field, value })),
      [
        {
          check: 'orphan-location',
          level: 'Warning',
          file: 'NAT00020.txt',
          line: 2,
          field: 'deliveryLocationIdentifier',
          value: 'GEEL02',
        },
        {
          check: 'orphan-program',
          level: 'Warning',
          file: 'NAT00030.txt',
          line: 2,
          field: 'programIdentifier',
          value: 'CHC33021',
        },
        {
          check: 'orphan-subject',
          level: 'Warning',
          file: 'NAT00060.txt',
          line: 3,
          field: 'subjectIdentifier',
          value: 'HLTAID011',
        },
        {
          check: 'flag-without-disability',
          level: 'Error',
          file: 'NAT00080.txt',
          line: 2,
          field: 'disabilityFlag',
          value: 'Y',
        },
        {
          check: 'flag-without-achievement',
          level: 'Error',
          file: 'NAT00080.txt',
          line: 2,
          field: 'priorEducationalAchievementFlag',
          value: 'Y',
        },
        {
          check: 'implausible-age',
          level: 'Error',
          file: 'NAT00080.txt',
          line: 3,
          field: 'dateOfBirth',
          value: '2024-01-01',
        },
        { check: 'at-school-age', level: 'Warning', file: 'NAT00080.txt', line: 4, field: 'atSchoolFlag', value: 'Y' },
        {
          check: 'orphan-client',
          level: 'Warning',
          file: 'NAT00080.txt',
          line: 5,
          field: 'clientIdentifier',
          value: 'C000077781',
        },
        {
          check: 'disability-without-flag',
          level: 'Error',
          file: 'NAT00090.txt',
          line: 1,
          field: 'clientIdentifier',
          value: 'C000077777',
        },
        {
          check: 'achievement-without-flag',
          level: 'Error',
          file: 'NAT00100.txt',
          line: 1,
          field: 'clientIdentifier',
          value: 'C000077777',
        },
        {
          check: 'commencing-without-program',
          level: 'Error',
          file: 'NAT00120.txt',
          line: 2,
          field: 'commencingProgramIdentifier',
          value: '3',
        },
        {
          check: 'specific-funding-without-specific-purpose',
          level: 'Warning',
          file: 'NAT00120.txt',
          line: 2,
          field: 'specificFundingIdentifier',
          value: 'SF001',
        },
        {
          check: 'continuing-already-ended',
          level: 'Warning',
          file: 'NAT00120.txt',
          line: 3,
          field: 'activityEndDate',
          value: '2026-01-30',
        },
        {
          check: 'credit-with-delivery',
          level: 'Error',
          file: 'NAT00120.txt',
          line: 4,
          field: 'deliveryModeIdentifier',
          value: 'YNN',
        },
        {
          check: 'vet-in-schools-without-school-type',
          level: 'Error',
          file: 'NAT00120.txt',
          line: 4,
          field: 'schoolTypeIdentifier',
          value: undefined,
        },
        {
          check: 'scheduled-hours-far-from-nominal',
          level: 'Warning',
          file: 'NAT00120.txt',
          line: 4,
          field: 'scheduledHours',
          value: '0200',
        },
      ],
    )
    // Every check is exercised, and each finding says its record and what to change in the SMS.
    assert.deepEqual(
      new Set(found.map((finding) => finding.check)),
      new Set(Object.values(NAT_CHECKS).map((check) => check.name)),
    )
    for (const finding of found) {
      assert.ok(finding.record, finding.message)
      assert.match(finding.correctiveAction!, /^In the SMS, /)
    }
    assert.equal(
      found.find((finding) => finding.check === 'implausible-age')!.message,
      'Client C000077779 would be 2 at the start of the activity on NAT00120 line 3 (2026-01-05)',
    )
  })
})
