// BRTS01200: the unique student identifier ends in a valid check character. The USI alphabet and its
// Luhn mod 32 check character are from the domain notes (AVS USI checks).
import { defineRecordRule, finding } from '../rule.ts'

const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'

/** Luhn mod N over the USI alphabet (N = 32): doubling every second character from the right. */
export function hasValidCheckCharacter(usi: string): boolean {
  let sum = 0
  let factor = 1
  for (let i = usi.length - 1; i >= 0; i--) {
    const codePoint = ALPHABET.indexOf(usi[i]!)
    if (codePoint < 0) return false
    const addend = factor * codePoint
    sum += Math.floor(addend / ALPHABET.length) + (addend % ALPHABET.length)
    factor = factor === 1 ? 2 : 1
  }
  return sum % ALPHABET.length === 0
}

export default defineRecordRule({
  technicalRuleId: 'BRTS01200',
  ruleId: 'BRDG00018',
  level: 'Error',
  resourceTypes: ['Student'],
  title: 'A USI ends in a valid check character',
  description:
    'A unique student identifier is 10 characters whose last is a Luhn mod 32 check character over the USI alphabet; a mistyped USI fails the check.',
  correctiveAction: 'Correct uniqueStudentIdentifier to the USI as issued by the USI Registry.',
  check: (student) => {
    const usi = student.uniqueStudentIdentifier
    if (!usi || usi === 'INTOFF' || hasValidCheckCharacter(usi)) return []
    return [
      finding(['$.uniqueStudentIdentifier'], `uniqueStudentIdentifier ${usi} does not end in a valid check character.`),
    ]
  },
})
