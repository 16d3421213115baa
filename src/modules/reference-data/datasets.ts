// The reference-data datasets the service ships and serves, one per endpoint
// (GET /vet-provider/v1/reference-data/{dataset}; classifications are the `classification` kind).
// Names are kebab-case and stable: they appear in URLs, in validation results (the dataset a code-list
// check used) and in the loader's command line, so a name is never changed once published.
//
// Each dataset's versioned seed data is `seed/<seedFile>`, a TSV file: `#` comment lines (dataset, what
// it is, `# source: ...`), then the header `code description avetmissCode businessEffectiveFrom
// businessEffectiveTo` (tab-separated), then one row per record. For the code lists the API spells as
// words (src/modules/resources/code-lists.ts), `code` is the word and `avetmissCode` its AVETMISS 8.0
// code; for the classifications `code` is the published code itself.
//
// Not shipped: field of education (ASCED) and occupation (ANZSCO). No authoritative machine-readable copy
// was found among the installed or registry packages, and codes are never invented; load them through the
// reference-data loader from the ABS publications when a copy is to hand.

export interface DatasetDefinition {
  /** kebab-case, stable; the `{dataset}` path segment */
  name: string
  kind: 'reference' | 'classification'
  title: string
  /** where the codes and descriptions come from (also the `# source:` line of the seed file) */
  source: string
  /** file name under seed/ */
  seedFile: string
}

const avetmiss = (what: string) =>
  `AVETMISS 8.0 (NCVER) ${what}, via the design domain notes; API words and AVETMISS codes from src/modules/resources/code-lists.ts`
const spec = (what: string) => `VET provider service specification (${what}); no AVETMISS code`

export const datasets = [
  {
    name: 'jurisdiction',
    kind: 'reference',
    title: 'Jurisdiction',
    source: spec('jurisdiction enum of transaction batches and reporting periods'),
    seedFile: 'jurisdiction.tsv',
  },
  {
    name: 'state',
    kind: 'reference',
    title: 'State identifier',
    source: avetmiss('state identifier'),
    seedFile: 'state.tsv',
  },
  {
    name: 'gender',
    kind: 'reference',
    title: 'Gender',
    source: avetmiss('sex identifier (M, F, X, @ not stated)'),
    seedFile: 'gender.tsv',
  },
  {
    name: 'indigenous-status',
    kind: 'reference',
    title: 'Indigenous status',
    source: avetmiss('Indigenous status identifier'),
    seedFile: 'indigenous-status.tsv',
  },
  {
    name: 'highest-school-level',
    kind: 'reference',
    title: 'Highest school level completed',
    source: avetmiss('highest school level completed identifier'),
    seedFile: 'highest-school-level.tsv',
  },
  {
    name: 'labour-force-status',
    kind: 'reference',
    title: 'Labour force status',
    source: avetmiss('labour force status identifier'),
    seedFile: 'labour-force-status.tsv',
  },
  {
    name: 'disability-type',
    kind: 'reference',
    title: 'Disability type',
    source: avetmiss('disability type identifier (NAT00090)'),
    seedFile: 'disability-type.tsv',
  },
  {
    name: 'prior-educational-achievement',
    kind: 'reference',
    title: 'Prior educational achievement',
    source: avetmiss('prior educational achievement identifier (NAT00100)'),
    seedFile: 'prior-educational-achievement.tsv',
  },
  {
    name: 'prior-educational-achievement-recognition',
    kind: 'reference',
    title: 'Prior educational achievement recognition',
    source: avetmiss('prior educational achievement recognition identifier (NAT00100)'),
    seedFile: 'prior-educational-achievement-recognition.tsv',
  },
  {
    name: 'funding-source-national',
    kind: 'reference',
    title: 'Funding source - national',
    source: avetmiss('funding source - national'),
    seedFile: 'funding-source-national.tsv',
  },
  {
    name: 'commencing-program',
    kind: 'reference',
    title: 'Commencing program identifier',
    source: avetmiss('commencing program identifier'),
    seedFile: 'commencing-program.tsv',
  },
  {
    name: 'study-reason',
    kind: 'reference',
    title: 'Study reason',
    source: avetmiss('study reason identifier'),
    seedFile: 'study-reason.tsv',
  },
  {
    name: 'school-type',
    kind: 'reference',
    title: 'School type',
    source: avetmiss('school type identifier'),
    seedFile: 'school-type.tsv',
  },
  {
    name: 'program-recognition',
    kind: 'reference',
    title: 'Program recognition',
    source: avetmiss('program recognition identifier'),
    seedFile: 'program-recognition.tsv',
  },
  {
    name: 'program-level-of-education',
    kind: 'reference',
    title: 'Program level of education',
    source: avetmiss('program level of education identifier (ASCED levels)'),
    seedFile: 'program-level-of-education.tsv',
  },
  {
    name: 'subject-type',
    kind: 'reference',
    title: 'Subject type',
    source:
      'AVETMISS 8.0 (NCVER) subject flag (NAT00060: C unit of competency, M module), as given in src/modules/resources/code-lists.ts (not in the design domain notes)',
    seedFile: 'subject-type.tsv',
  },
  {
    name: 'predominant-delivery-mode',
    kind: 'reference',
    title: 'Predominant delivery mode',
    source: avetmiss('predominant delivery mode'),
    seedFile: 'predominant-delivery-mode.tsv',
  },
  {
    name: 'survey-availability',
    kind: 'reference',
    title: 'Survey availability',
    source: avetmiss('survey contact status, the ancestor of surveyAvailability'),
    seedFile: 'survey-availability.tsv',
  },
  {
    name: 'student-status',
    kind: 'reference',
    title: 'Student status (enrolment lifecycle)',
    source: spec('studentStatus values shown; States and transitions'),
    seedFile: 'student-status.tsv',
  },
  {
    name: 'student-status-reason',
    kind: 'reference',
    title: 'Student status reason',
    source: spec('studentStatusReason: the deferral and cancellation reasons it names'),
    seedFile: 'student-status-reason.tsv',
  },
  {
    name: 'voided-reason',
    kind: 'reference',
    title: 'Voided reason',
    source: spec('common fields, voidedReason'),
    seedFile: 'voided-reason.tsv',
  },
  {
    name: 'outcome-national',
    kind: 'reference',
    title: 'Outcome identifier - national',
    source: avetmiss('outcome identifier - national'),
    seedFile: 'outcome-national.tsv',
  },
  {
    name: 'participant-involvement-type',
    kind: 'reference',
    title: 'Third-party participant involvement type',
    source:
      'Provisional, no published list: the specification names participantInvolvementType but not its values; words from src/modules/resources/code-lists.ts after the Standards for RTOs third-party arrangements; no AVETMISS code',
    seedFile: 'participant-involvement-type.tsv',
  },
  {
    name: 'country',
    kind: 'classification',
    title: 'Country (SACC)',
    source:
      'ABS Standard Australian Classification of Countries (SACC), via NCVER country identifier system file, revision of 26 Nov 2025',
    seedFile: 'country.tsv',
  },
  {
    name: 'language',
    kind: 'classification',
    title: 'Language (ASCL 2016)',
    source:
      'ABS Australian Standard Classification of Languages (ASCL) 2016, via NCVER language identifier system file',
    seedFile: 'language.tsv',
  },
] as const satisfies readonly DatasetDefinition[]

export type DatasetName = (typeof datasets)[number]['name']
