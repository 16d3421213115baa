// A believable NAT file set without faults, as the lines of each file, formatted by the package's
// writer one record at a time: the records are dropped as soon as their line is made, so a large set
// holds its lines and little else.
//
// The set is consistent the way AVS checks it: every activity's location, client, subject and program
// is in NAT00020, NAT00080, NAT00060 and NAT00030/NAT00030A; each client has its NAT00085 line, and
// NAT00090/NAT00100 lines exactly when its flags say Y; a program enrolment's lines share their
// commencing program identifier, funding and study reason; a completion in NAT00130 is that of a
// client who has a competent result in every unit of the program, dated on the last of their end dates.
// Dates fall in the reporting year: results and withdrawals on or before `asOf`, activity after it
// continuing or not yet started, nothing after the end of the quarter of `asOf`.
import { formatNatRecord } from '../format-file.ts'
import { NAT_FILE_IDS, type NatFileId, type NatValues } from '../layouts/index.ts'
import {
  FAMILY_NAMES,
  GIVEN_NAMES,
  HOME_STATE_WEIGHTS,
  HOME_STATES,
  LOCAL_SKILL_SETS,
  ORGANISATION_NAMES,
  PLACES,
  type Place,
  QUALIFICATIONS,
  SHORT_COURSE_UNITS,
  STREET_NAMES,
  UNIT_OBJECTS,
  UNIT_VERBS,
} from './catalogue.ts'
import type { CodePool, CodePools, Preference } from './code-pool.ts'
import type { Random } from './random.ts'

export interface CleanSetOptions {
  /** NAT00120 lines to make. */
  activities: number
  rtoCode: string
  year: number
  /** YYYY-MM-DD, in `year`. */
  asOf: string
}

/** The lines of each file (no line ends), and what the fault planter needs to know of the activity. */
export interface CleanSet {
  lines: Partial<Record<NatFileId, string[]>>
  /**
   * 1 for a NAT00120 line that can be lost (a reader fault) without another problem: it is outside a
   * program, or in a program enrolment without a completion (which would then lack its activity).
   */
  activityCanBeLost: Uint8Array
  /** The client identifier that follows the last one: the next a faulty line can name. */
  nextClientIdentifier: (offset: number) => string
}

// How common each answer is, by the API word of the reference data (see code-pool.ts).
const NOT_SUPPLEMENTARY: Preference['exclude'] = (code) => code.startsWith('0')
const PREFER = {
  gender: { words: { Female: 50, Male: 47, Other: 2 }, rest: 0 },
  indigenous: { words: { Neither_Aboriginal_nor_Torres_Strait_Islander: 92 }, rest: 8 },
  school: {
    words: { Year_12: 52, Year_11: 12, Year_10: 22, Year_9: 7, Year_8_or_below: 4, Did_not_go_to_school: 1 },
    rest: 0,
  },
  labourForce: {
    words: {
      Full_time_employee: 34,
      Part_time_employee: 20,
      Self_employed_not_employing_others: 5,
      Employer: 2,
      Unemployed_seeking_full_time_work: 13,
      Unemployed_seeking_part_time_work: 6,
      Not_employed_not_seeking_employment: 17,
    },
    rest: 1,
  },
  country: { words: { '1101': 76 }, rest: 24, exclude: NOT_SUPPLEMENTARY },
  language: { words: { '1201': 78 }, rest: 22, exclude: NOT_SUPPLEMENTARY },
  funding: {
    words: {
      Commonwealth_and_state_general_purpose_recurrent: 48,
      Domestic_full_fee_paying: 38,
      State_specific_purpose_program: 6,
      Commonwealth_specific_purpose_program: 4,
      International_onshore: 4,
    },
    rest: 0,
  },
  shortCourseFunding: { words: { Domestic_full_fee_paying: 85, State_specific_purpose_program: 15 }, rest: 0 },
  finalOutcome: {
    words: {
      Competency_achieved: 78,
      Competency_not_achieved: 5,
      Withdrawn: 7,
      RPL_granted: 4,
      RPL_not_granted: 0.5,
      Credit_transfer: 4,
      Non_assessable_satisfactorily_completed: 1,
      Non_assessable_not_satisfactorily_completed: 0.5,
    },
    rest: 0,
  },
  competentOutcome: { words: { Competency_achieved: 86, RPL_granted: 7, Credit_transfer: 7 }, rest: 0 },
  shortCourseOutcome: { words: { Competency_achieved: 93, Competency_not_achieved: 4, Withdrawn: 3 }, rest: 0 },
  schoolType: { words: { Government: 60, Catholic: 22, Independent: 18 }, rest: 0 },
  recognition: { words: { Australian: 90, Australian_equivalent: 3, International: 7 }, rest: 0 },
  survey: { words: { Available: 1 }, rest: 0 },
  even: {},
} satisfies Record<string, Preference>

const PLACES_BY_STATE = Map.groupBy(PLACES, (place) => place.state)

/** Outcomes that give no training (delivery mode NNN, predominant delivery mode not applicable). */
const NO_DELIVERY = new Set(['RPL_granted', 'RPL_not_granted', 'Credit_transfer'])
/** The USI alphabet and its Luhn mod 32 check character (as the service checks it, BRTS01200). */
const USI_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'
/** The published SACC code of Australia: where delivery locations are, and most students were born. */
const AUSTRALIA = '1101'
/** Telephone area codes by state. */
const AREA_CODE: Record<string, string> = {
  NSW: '02',
  ACT: '02',
  VIC: '03',
  TAS: '03',
  QLD: '07',
  SA: '08',
  WA: '08',
  NT: '08',
}

const DAY = 86_400_000
const dayOf = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / DAY
const isoDays = new Map<number, string>()
/** YYYY-MM-DD of a day number; a set names a few thousand days, so they are kept. */
function isoOf(day: number): string {
  let iso = isoDays.get(day)
  if (iso === undefined) {
    iso = new Date(day * DAY).toISOString().slice(0, 10)
    isoDays.set(day, iso)
  }
  return iso
}

interface Location {
  identifier: string
  place: Place
}
interface Subject {
  identifier: string
  hours: number
}
interface Program {
  identifier: string
  units: Subject[]
}

export function buildCleanSet(random: Random, codes: CodePools, options: CleanSetOptions): CleanSet {
  return new CleanSetBuilder(random, codes, options).build()
}

class CleanSetBuilder {
  readonly #random: Random
  readonly #options: CleanSetOptions
  readonly #pool: (dataset: string) => CodePool
  readonly #lines = Object.fromEntries(NAT_FILE_IDS.map((fileId) => [fileId, []])) as unknown as Record<
    NatFileId,
    string[]
  >
  readonly #canBeLost: Uint8Array
  readonly #firstDay: number
  readonly #lastDay: number
  readonly #asOf: number
  /** The last day activity may start: the end of the quarter of asOf (the service refuses later states). */
  readonly #lastStart: number
  #locations: Location[] = []
  #programs: Program[] = []
  #shortCourses: Subject[] = []
  #parchments = 0

  constructor(random: Random, codes: CodePools, options: CleanSetOptions) {
    this.#random = random
    this.#options = options
    this.#pool = (dataset) => codes.of(dataset)
    this.#canBeLost = new Uint8Array(options.activities)
    this.#firstDay = dayOf(`${options.year}-01-01`)
    this.#lastDay = dayOf(`${options.year}-12-31`)
    this.#asOf = dayOf(options.asOf)
    const month = Number(options.asOf.slice(5, 7))
    const quarterEnd = Date.UTC(options.year, Math.ceil(month / 3) * 3, 1) / DAY - 1
    this.#lastStart = Math.min(quarterEnd, this.#lastDay)
  }

  #add<F extends NatFileId>(fileId: F, values: NatValues<F>): void {
    this.#lines[fileId].push(formatNatRecord(fileId, values))
  }

  build(): CleanSet {
    const { activities } = this.#options
    this.#organisation()
    this.#makeLocations(Math.min(20, Math.ceil(Math.sqrt(activities) / 15)))
    this.#makeShortCourses()
    this.#makePrograms(
      Math.min(QUALIFICATIONS.length, Math.max(2, Math.round(Math.sqrt(activities) / 6))),
      Math.min(LOCAL_SKILL_SETS.length, 1 + Math.floor(activities / 5000)),
    )
    let client = 0
    while (this.#lines.NAT00120.length < activities) this.#client(client++)
    const clients = client
    return {
      lines: this.#lines,
      activityCanBeLost: this.#canBeLost,
      nextClientIdentifier: (offset) => clientIdentifierOf(clients + offset),
    }
  }

  #organisation(): void {
    const random = this.#random
    const contact = this.#person()
    this.#add('NAT00010', {
      trainingOrganisationIdentifier: this.#options.rtoCode,
      trainingOrganisationName: random.pick(ORGANISATION_NAMES),
      contactName: `${contact.given} ${contact.family}`,
      telephoneNumber: `1300 ${random.int(100, 999)} ${random.int(100, 999)}`,
      emailAddress: 'avetmiss@example.com',
    })
  }

  #makeLocations(count: number): void {
    const random = this.#random
    const home = random.weighted(HOME_STATES, HOME_STATE_WEIGHTS)
    const inState = PLACES.filter((place) => place.state === home)
    const elsewhere = PLACES.filter((place) => place.state !== home)
    const places = [inState[0]!, ...random.sample(inState.slice(1), count - 1)]
    while (places.length < count) {
      const place = random.pick(elsewhere)
      if (!places.includes(place)) places.push(place)
    }
    const states = this.#pool('state')
    const countries = this.#pool('country')
    for (const [index, place] of places.entries()) {
      const identifier = `${place.suburb
        .replace(/[^A-Za-z]/g, '')
        .slice(0, 5)
        .toUpperCase()}${String(index + 1).padStart(2, '0')}`
      this.#locations.push({ identifier, place })
      this.#add('NAT00020', {
        trainingOrganisationIdentifier: this.#options.rtoCode,
        deliveryLocationIdentifier: identifier,
        deliveryLocationName: `${place.suburb} ${random.pick(['Campus', 'Training Centre', 'Skills Centre'])}`,
        postcode: place.postcode,
        stateIdentifier: states.codeOf(place.state),
        addressSuburbLocalityOrTown: place.suburb,
        countryIdentifier: countries.codeOf(AUSTRALIA),
      })
    }
  }

  #makeShortCourses(): void {
    for (const unit of SHORT_COURSE_UNITS) {
      this.#shortCourses.push({ identifier: unit.code, hours: unit.hours })
      this.#add('NAT00060', {
        subjectIdentifier: unit.code,
        subjectName: unit.name,
        subjectFieldOfEducationIdentifier: unit.fieldOfEducation,
        vetFlag: 'Y',
        nominalHours: String(unit.hours),
      })
    }
  }

  #makePrograms(national: number, local: number): void {
    const random = this.#random
    const taken = new Set(this.#shortCourses.map((unit) => unit.identifier))
    for (const qualification of random.sample(QUALIFICATIONS, national)) {
      const prefix = qualification.code.slice(0, 3)
      const units: Subject[] = []
      const count = qualification.level <= 2 ? random.int(7, 9) : random.int(9, 13)
      while (units.length < count) {
        const identifier = `${prefix}${random.pick(qualification.areas)}${qualification.level}${String(random.int(1, 40)).padStart(2, '0')}`
        if (taken.has(identifier)) continue
        taken.add(identifier)
        const hours = random.pick([20, 25, 30, 40, 40, 50, 60, 80])
        units.push({ identifier, hours })
        this.#add('NAT00060', {
          subjectIdentifier: identifier,
          subjectName: `${random.pick(UNIT_VERBS)} ${random.pick(UNIT_OBJECTS)}`,
          vetFlag: 'Y',
          nominalHours: String(hours),
        })
      }
      // First aid and the like are part of many qualifications.
      if (random.chance(0.3)) units.push(random.pick(this.#shortCourses))
      this.#programs.push({ identifier: qualification.code, units })
      this.#add('NAT00030', {
        programIdentifier: qualification.code,
        programName: qualification.name,
        nominalHours: String(units.reduce((sum, unit) => sum + unit.hours, 0)),
      })
    }
    const recognition = this.#pool('program-recognition').codeOf('Locally_recognised_skill_set')
    const level = this.#pool('program-level-of-education').codeOf('Other_non_award_course')
    for (const [index, skillSet] of LOCAL_SKILL_SETS.slice(0, local).entries()) {
      const units = random.sample(this.#shortCourses, skillSet.units)
      const identifier = `LSS${String(index + 1).padStart(3, '0')}`
      this.#programs.push({ identifier, units })
      const fieldOfEducation = SHORT_COURSE_UNITS.find((unit) => unit.code === units[0]!.identifier)!.fieldOfEducation
      this.#add('NAT00030A', {
        programIdentifier: identifier,
        programName: skillSet.name,
        nominalHours: String(units.reduce((sum, unit) => sum + unit.hours, 0)),
        programRecognitionIdentifier: recognition,
        programLevelOfEducationIdentifier: level,
        programFieldOfEducationIdentifier: fieldOfEducation.slice(0, 4),
        vetFlag: 'Y',
      })
    }
  }

  #person(genderWord?: string): { given: string; family: string } {
    const random = this.#random
    const given =
      genderWord === 'Male'
        ? GIVEN_NAMES.male
        : genderWord === 'Female'
          ? GIVEN_NAMES.female
          : random.pick([GIVEN_NAMES.female, GIVEN_NAMES.male, GIVEN_NAMES.other])
    return { given: random.pick(given), family: random.pick(FAMILY_NAMES) }
  }

  /** A client: NAT00080, NAT00085, their NAT00090 and NAT00100 lines, and their activity. */
  #client(index: number): void {
    const random = this.#random
    const { year } = this.#options
    const pool = this.#pool
    const identifier = clientIdentifierOf(index)

    const genders = pool('gender')
    const gender = random.chance(0.005) && genders.notStated ? genders.notStated : genders.pick(random, PREFER.gender)
    const genderWord = genders.words[genders.codes.indexOf(gender)]
    const { given, family } = this.#person(genderWord)
    const second = random.chance(0.3) ? this.#person(genderWord).given : undefined
    const atSchool = random.chance(0.04)
    const age = atSchool
      ? random.int(15, 17)
      : random.weighted([17, 20, 25, 30, 40, 50, 60], [8, 25, 22, 16, 15, 10, 4])
    const birthYear = year - age - random.int(0, atSchool ? 0 : 4)
    const dateOfBirth = isoOf(dayOf(`${birthYear}-01-01`) + random.int(0, 364))

    const location = random.weighted(
      this.#locations,
      this.#locations.map((_, i) => 1 / (i + 1)),
    )
    const place = random.chance(0.6)
      ? location.place
      : random.chance(0.95)
        ? random.pick(PLACES_BY_STATE.get(location.place.state)!)
        : random.pick(PLACES)
    const state = pool('state').codeOf(place.state)
    const street = {
      flat: random.chance(0.15) ? `Unit ${random.int(1, 40)}` : undefined,
      number: String(random.int(1, 250)),
      name: random.pick(STREET_NAMES),
    }
    const disabilities = random.chance(0.06) ? pool('disability-type').codes : []
    const disabilityTypes = random.sample(disabilities, random.weighted([1, 2], [80, 20]))
    const achievements = random.chance(0.35)
      ? random.sample(pool('prior-educational-achievement').codes, random.weighted([1, 2], [75, 25]))
      : []
    const notStated = (dataset: string, p: number) => (random.chance(p) ? pool(dataset).notStated : undefined)

    this.#add('NAT00080', {
      clientIdentifier: identifier,
      nameForEncryption: `${family}, ${given}${second ? ` ${second}` : ''}`,
      highestSchoolLevelCompletedIdentifier:
        notStated('highest-school-level', 0.02) ??
        (atSchool
          ? pool('highest-school-level').codeOf(age < 17 ? 'Year_9' : 'Year_10')
          : pool('highest-school-level').pick(random, PREFER.school)),
      gender,
      dateOfBirth,
      postcode: place.postcode,
      indigenousStatusIdentifier:
        notStated('indigenous-status', 0.03) ?? pool('indigenous-status').pick(random, PREFER.indigenous),
      languageIdentifier: pool('language').pick(random, PREFER.language),
      labourForceStatusIdentifier:
        notStated('labour-force-status', 0.02) ?? pool('labour-force-status').pick(random, PREFER.labourForce),
      countryIdentifier: pool('country').pick(random, PREFER.country),
      disabilityFlag: disabilityTypes.length > 0 ? 'Y' : 'N',
      priorEducationalAchievementFlag: achievements.length > 0 ? 'Y' : 'N',
      atSchoolFlag: atSchool ? 'Y' : 'N',
      addressSuburbLocalityOrTown: place.suburb,
      uniqueStudentIdentifier: random.chance(0.98) ? this.#usi() : undefined,
      stateIdentifier: state,
      addressFlatUnitDetails: street.flat,
      addressStreetNumber: street.number,
      addressStreetName: street.name,
      surveyContactStatus: pool('survey-availability').pick(random, PREFER.survey),
    })

    const email = `${asciiOf(given)}.${asciiOf(family)}${random.int(1, 99)}@${random.pick(['example.com', 'example.net', 'example.org'])}`
    const postBox = random.chance(0.05)
    this.#add('NAT00085', {
      clientIdentifier: identifier,
      clientTitle: random.chance(0.6) ? titleOf(genderWord, random) : undefined,
      clientFirstGivenName: given,
      clientFamilyName: family,
      addressFlatUnitDetails: postBox ? undefined : street.flat,
      addressStreetNumber: postBox ? undefined : street.number,
      addressStreetName: postBox ? undefined : street.name,
      addressPostalDeliveryBox: postBox ? `PO Box ${random.int(1, 9999)}` : undefined,
      addressPostalSuburbLocalityOrTown: place.suburb,
      postcode: place.postcode,
      stateIdentifier: state,
      telephoneNumberHome: random.chance(0.25)
        ? `${AREA_CODE[place.state] ?? '02'} ${random.int(4000, 9999)} ${random.int(1000, 9999)}`
        : undefined,
      telephoneNumberMobile: `04${random.int(10, 99)} ${random.int(100, 999)} ${random.int(100, 999)}`,
      emailAddress: email,
      emailAddressAlternative: random.chance(0.1) ? `${asciiOf(given)}${random.int(100, 999)}@example.net` : undefined,
    })
    for (const disabilityTypeIdentifier of disabilityTypes) {
      this.#add('NAT00090', { clientIdentifier: identifier, disabilityTypeIdentifier })
    }
    for (const priorEducationalAchievementIdentifier of achievements) {
      this.#add('NAT00100', {
        clientIdentifier: identifier,
        priorEducationalAchievementIdentifier,
        priorEducationalAchievementRecognitionIdentifier: pool('prior-educational-achievement-recognition').pick(
          random,
          PREFER.recognition,
        ),
      })
    }
    this.#activity(identifier, location, atSchool)
  }

  /** The client's NAT00120 lines (and NAT00130 completion): a program enrolment, short courses, or both. */
  #activity(client: string, location: Location, atSchool: boolean): void {
    const random = this.#random
    const room = this.#options.activities - this.#lines.NAT00120.length
    const schoolType = atSchool ? this.#pool('school-type').pick(random, PREFER.schoolType) : undefined
    const inProgram = random.chance(0.88)
    let used = 0
    if (inProgram) used = this.#programEnrolment(client, location, room, schoolType)
    if ((!inProgram || random.chance(0.08)) && used < room) {
      const units = random.sample(this.#shortCourses, Math.min(room - used, random.weighted([1, 2], [80, 20])))
      for (const unit of units) this.#shortCourse(client, location, unit, schoolType)
    }
  }

  /** A program enrolment's lines; returns how many. A completer has a competent result in every unit. */
  #programEnrolment(client: string, location: Location, room: number, schoolType: string | undefined): number {
    const random = this.#random
    const pool = this.#pool
    const program = random.weighted(
      this.#programs,
      this.#programs.map((_, i) => 1 / (i + 2)),
    )
    const all = program.units
    const step = random.int(7, 28)
    const durations = all.map(() => random.int(14, 90))
    // The whole program, finished by asOf, starting no earlier than the year.
    const span = (all.length - 1) * step + Math.max(...durations)
    const completer = all.length <= room && random.chance(0.3) && this.#asOf - span >= this.#firstDay
    const units = completer ? all : random.sample(all, Math.min(room, random.int(1, Math.max(1, all.length - 1))))
    const start = completer
      ? random.int(this.#firstDay, this.#asOf - span)
      : random.int(this.#firstDay, Math.min(this.#asOf, this.#lastStart))
    const commencing = pool('commencing-program').codeOf(random.chance(0.8) ? 'Commencing' : 'Continuing')
    const fundingSourceNational = pool('funding-source-national').pick(random, PREFER.funding)
    const studyReason = random.chance(0.08)
      ? undefined
      : random.chance(0.03)
        ? pool('study-reason').notStated
        : pool('study-reason').pick(random, PREFER.even)

    let completed = -1
    const first = this.#lines.NAT00120.length
    for (const [index, unit] of units.entries()) {
      const startDay = Math.min(start + index * step, this.#lastStart)
      const endDay = Math.max(startDay, Math.min(startDay + durations[index]!, this.#lastDay))
      const outcome = completer
        ? this.#outcomeWord('competentOutcome')
        : endDay <= this.#asOf
          ? this.#outcomeWord('finalOutcome')
          : undefined
      completed = Math.max(completed, endDay)
      this.#activityLine({
        client,
        location,
        unit,
        program: program.identifier,
        startDay,
        endDay,
        outcome,
        commencing,
        fundingSourceNational,
        studyReason,
        schoolType,
      })
    }
    if (!completer) {
      this.#canBeLost.fill(1, first, this.#lines.NAT00120.length)
      return units.length
    }
    const issued = random.chance(0.92)
    const issueDay = Math.min(completed + random.int(0, 14), this.#asOf)
    this.#parchments += 1
    this.#add('NAT00130', {
      trainingOrganisationIdentifier: this.#options.rtoCode,
      programIdentifier: program.identifier,
      clientIdentifier: client,
      dateProgramCompleted: isoOf(completed),
      issuedFlag: issued ? 'Y' : 'N',
      parchmentIssueDate: issued ? isoOf(issueDay) : undefined,
      parchmentNumber: issued
        ? `${this.#options.rtoCode}-${this.#options.year}-${String(this.#parchments).padStart(6, '0')}`
        : undefined,
    })
    return units.length
  }

  /** A short course: one unit outside any program, over one to three days. */
  #shortCourse(client: string, location: Location, unit: Subject, schoolType: string | undefined): void {
    const random = this.#random
    const startDay = random.int(this.#firstDay, Math.min(this.#asOf, this.#lastStart))
    const endDay = Math.min(startDay + random.int(0, 2), this.#lastDay)
    this.#canBeLost[this.#lines.NAT00120.length] = 1
    this.#activityLine({
      client,
      location,
      unit,
      program: undefined,
      startDay,
      endDay,
      outcome: endDay <= this.#asOf ? this.#outcomeWord('shortCourseOutcome') : undefined,
      commencing: this.#pool('commencing-program').codeOf('Subject_enrolment_only'),
      fundingSourceNational: this.#pool('funding-source-national').pick(random, PREFER.shortCourseFunding),
      studyReason: random.chance(0.9) ? this.#pool('study-reason').pick(random, PREFER.even) : undefined,
      schoolType,
    })
  }

  #outcomeWord(preference: 'finalOutcome' | 'competentOutcome' | 'shortCourseOutcome'): string {
    const outcomes = this.#pool('outcome-national')
    const code = outcomes.pick(this.#random, PREFER[preference])
    return outcomes.words[outcomes.codes.indexOf(code)]!
  }

  /**
   * One NAT00120 line. `outcome` is a final result's API word, or undefined for one not known by asOf
   * (continuing once started, not yet started before).
   */
  #activityLine(activity: {
    client: string
    location: Location
    unit: Subject
    program: string | undefined
    startDay: number
    endDay: number
    outcome: string | undefined
    commencing: string
    fundingSourceNational: string
    studyReason: string | undefined
    schoolType: string | undefined
  }): void {
    const random = this.#random
    const pool = this.#pool
    const { outcome, unit } = activity
    const outcomeCode = pool('outcome-national').codeOf(
      outcome ?? (activity.startDay <= this.#asOf ? 'Continuing' : 'Not_yet_started'),
    )
    const predominant = pool('predominant-delivery-mode')
    let deliveryModeIdentifier: string
    let predominantDeliveryMode: string
    if (outcome !== undefined && NO_DELIVERY.has(outcome)) {
      deliveryModeIdentifier = 'NNN'
      predominantDeliveryMode = predominant.codeOf('Not_applicable')
    } else {
      const [letters, mode] = random.weighted(
        [
          ['YNN', 'Internal'],
          ['NYN', 'External'],
          ['NNY', 'Workplace_based'],
          ['YNY', 'Workplace_based'],
          ['YNY', 'Internal'],
          ['YYN', 'Internal'],
        ] as const,
        [68, 12, 6, 5, 5, 4],
      )
      deliveryModeIdentifier = letters
      predominantDeliveryMode = predominant.codeOf(mode)
    }
    const creditTransfer = outcome === 'Credit_transfer'
    const scheduledHours = creditTransfer ? 0 : unit.hours
    const attended =
      outcome === undefined
        ? activity.startDay <= this.#asOf
          ? Math.round(scheduledHours * random.next() * 0.8)
          : 0
        : outcome === 'Withdrawn'
          ? Math.round(scheduledHours * random.next() * 0.5)
          : NO_DELIVERY.has(outcome)
            ? 0
            : scheduledHours
    const feePaying =
      activity.fundingSourceNational === pool('funding-source-national').codeOf('Domestic_full_fee_paying')
    this.#add('NAT00120', {
      trainingOrganisationIdentifier: this.#options.rtoCode,
      deliveryLocationIdentifier: activity.location.identifier,
      clientIdentifier: activity.client,
      subjectIdentifier: unit.identifier,
      programIdentifier: activity.program,
      activityStartDate: isoOf(activity.startDay),
      activityEndDate: isoOf(activity.endDay),
      deliveryModeIdentifier,
      outcomeIdentifierNational: outcomeCode,
      fundingSourceNational: activity.fundingSourceNational,
      commencingProgramIdentifier: activity.commencing,
      studyReasonIdentifier: activity.studyReason,
      vetInSchoolsFlag: activity.schoolType ? 'Y' : 'N',
      schoolTypeIdentifier: activity.schoolType,
      clientTuitionFee: feePaying && !creditTransfer ? String(unit.hours * random.int(8, 15)) : undefined,
      hoursAttended: attended > 0 ? String(attended) : undefined,
      scheduledHours: String(scheduledHours),
      predominantDeliveryMode,
    })
  }

  /** A USI: nine characters of the USI alphabet and the Luhn mod 32 check character. */
  #usi(): string {
    let body = ''
    for (let i = 0; i < 9; i++) body += USI_ALPHABET[this.#random.int(0, 31)]
    for (const check of USI_ALPHABET) if (hasValidUsiCheck(body + check)) return body + check
    throw new Error('no USI check character') // unreachable: one of the 32 always fits
  }
}

export const clientIdentifierOf = (index: number) => `S${String(index + 1).padStart(7, '0')}`

function hasValidUsiCheck(usi: string): boolean {
  let sum = 0
  let factor = 1
  for (let i = usi.length - 1; i >= 0; i--) {
    const addend = factor * USI_ALPHABET.indexOf(usi[i]!)
    sum += Math.floor(addend / 32) + (addend % 32)
    factor = factor === 1 ? 2 : 1
  }
  return sum % 32 === 0
}

/** A name in an email address: lower case, accents and punctuation dropped (Zoë to zoe, O'Brien to obrien). */
function asciiOf(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase()
}

function titleOf(genderWord: string | undefined, random: Random): string {
  if (random.chance(0.05)) return 'Dr'
  if (genderWord === 'Male') return 'Mr'
  if (genderWord === 'Female') return random.pick(['Ms', 'Mrs', 'Miss'])
  return 'Mx'
}
