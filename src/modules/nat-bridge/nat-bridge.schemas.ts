// The NAT import's published shapes: a place in the NAT files, a NAT problem, the import's answer, and
// a failed validation result with its NAT places.
import Type from 'typebox'
import { PagedEnvelope } from '../../platform/http/paging.ts'
import { named } from '../../platform/http/schema-names.ts'
import { StringEnum } from '../../platform/http/types.ts'
import { resourceTypes } from '../../domain/resource-types.ts'
import { ValidationResult } from '../validation/index.ts'

export const NatPlace = named(
  'NatPlace',
  Type.Object(
    {
      file: Type.String({ description: "the file's name as found in the zip (a path inside it)" }),
      fileId: Type.Optional(Type.String({ description: 'NAT00010 ... NAT00130' })),
      line: Type.Integer({
        minimum: 0,
        description: '1-based; 0 for the file as a whole (missing, or in the set twice)',
      }),
      field: Type.Optional(Type.String({ description: "the NAT field's name in camelCase (activityStartDate)" })),
      fieldLabel: Type.Optional(Type.String({ description: 'its published name (Activity start date)' })),
      text: Type.String({ description: 'the place in words: NAT00120 line 17 field Activity start date' }),
    },
    { description: 'a place in the NAT files: the file, line and field to correct' },
  ),
)

export const NatProblem = named(
  'NatProblem',
  Type.Object(
    {
      stage: StringEnum(['read', 'map', 'upload'] as const, {
        description:
          "read: a line the reader could not read (left out); map: a value the mapping could not carry (the field, or the record, left out); upload: a mapped record the upload's structural check refused (left out)",
      }),
      nat: Type.Array(NatPlace, { description: 'where, in the NAT files (one place; none when it could not be told)' }),
      value: Type.Optional(Type.String({ description: 'the offending text, as found' })),
      record: Type.Optional(
        Type.String({
          description:
            "the record in the files' identifiers: client C000077777, subject BSBWHS411, program BSB40120, location CBD01, starting 02/02/2026",
        }),
      ),
      message: Type.String({ description: 'what is wrong, in plain words, with the value' }),
      correctiveAction: Type.Optional(
        Type.String({ description: 'what to change in the student management system (SMS) that wrote the files' }),
      ),
      resourceType: Type.Optional(Type.String({ description: 'upload: the refused record' })),
      resourceUID: Type.Optional(Type.String()),
      accessPath: Type.Optional(Type.String({ description: 'upload: the refused field, e.g. $.familyName' })),
    },
    { description: 'a problem of the NAT files: what was left out of the batch, and where it is' },
  ),
)

export const NatCheckFinding = named(
  'NatCheckFinding',
  Type.Object(
    {
      check: Type.String({
        description:
          'the NAT check (packages/avetmiss README, "NAT checks before upload"): flag-without-disability, ...',
      }),
      level: StringEnum(['Error', 'Warning'] as const, {
        description:
          'Error: a contradiction the held data would keep, correct it before submitting; Warning: worth a look',
      }),
      nat: Type.Array(NatPlace, { description: 'where, in the NAT files' }),
      value: Type.Optional(Type.String({ description: 'the value found' })),
      record: Type.Optional(Type.String({ description: "the record in the files' identifiers" })),
      message: Type.String(),
      correctiveAction: Type.Optional(Type.String({ description: 'what to change in the SMS' })),
    },
    {
      description:
        "a contradiction across the NAT files' lines that NCVER's validation software reports (the records are stored as mapped)",
    },
  ),
)

const RecordsByType = Type.Object(
  Object.fromEntries(resourceTypes.map((type) => [type, Type.Integer({ minimum: 0 })])),
  { additionalProperties: false, description: 'records stored, by resource type, every type listed' },
)

export const NatImportResult = named(
  'NatImportResult',
  Type.Object(
    {
      transactionBatchToken: Type.String({ description: 'the new batch holding the records' }),
      jurisdiction: Type.String(),
      rtoCode: Type.String({ description: "the RTO code in every record's UID: the caller's RTO" }),
      importedAt: Type.String({ format: 'date-time' }),
      files: Type.Array(
        Type.Object(
          {
            fileId: Type.String(),
            file: Type.String(),
            layout: Type.Optional(
              Type.String({
                description:
                  'the published layout the file was read as: AVETMISS 8.0 NAT00030, 114 characters (national); AVETMISS NAT00030, 130 characters (...); ... with state extension columns 159-170 (read, not carried); AVETMISS release 7.0 (not read)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        { description: 'the NAT files read, with the names found in the zip and the layout each was read as' },
      ),
      ignoredFiles: Type.Array(Type.String(), { description: 'other files in the zip, not read' }),
      recordCount: Type.Integer({ minimum: 1, description: 'records stored in the batch' }),
      recordsByType: RecordsByType,
      carriedForward: Type.Optional(
        Type.Integer({
          minimum: 0,
          description:
            "program and subject enrolments already held whose held lifecycle history (and a program enrolment's first commencement, answers and completion) the import carried forward: continuing students, since a NAT file carries one collection period. Absent from imports made before it was counted.",
        }),
      ),
      natProblemCount: Type.Integer({ minimum: 0, description: 'every NAT problem found' }),
      natProblems: Type.Array(NatProblem, {
        description:
          'the first 1000 NAT problems, read, then map, then upload, each in file and line order. What they name is not in the batch: while there is one, the batch does not report all of the files, and should not be submitted.',
      }),
      natCheckCount: Type.Optional(
        Type.Integer({
          minimum: 0,
          description: 'every NAT check finding (absent in answers of imports before the checks)',
        }),
      ),
      natChecks: Type.Optional(
        Type.Array(NatCheckFinding, {
          description:
            'the first 1000 NAT check findings, in file and line order: contradictions across lines; an Error should be corrected in the SMS before the batch is submitted',
        }),
      ),
    },
    { description: 'a NAT file set imported into a new transaction batch' },
  ),
)

export const NatImportStatus = named(
  'NatImportStatus',
  Type.Object(
    {
      importId: Type.String({ format: 'uuid', description: 'the import, as POST .../nat-import queued it' }),
      jurisdiction: Type.String(),
      status: StringEnum(['Queued', 'Running', 'Completed', 'Failed'], {
        description:
          "Queued: waiting its turn (one RTO's imports run one at a time; other RTOs' run beside them). Running: being read, mapped and stored (progress says how far). Completed: the batch is made (transactionBatchToken, result). Failed: nothing was stored (problem).",
      }),
      queuedAt: Type.String({ format: 'date-time' }),
      startedAt: Type.Optional(Type.String({ format: 'date-time' })),
      finishedAt: Type.Optional(Type.String({ format: 'date-time' })),
      progress: Type.Object(
        {
          stage: Type.Optional(StringEnum(['reading', 'storing', 'done'])),
          filesRead: Type.Optional(Type.Integer({ minimum: 0, description: 'NAT files read so far' })),
          linesRead: Type.Optional(Type.Integer({ minimum: 0, description: 'lines of those files read' })),
          recordsMapped: Type.Optional(Type.Integer({ minimum: 0, description: 'records the lines mapped to' })),
          recordsStored: Type.Optional(
            Type.Integer({ minimum: 0, description: "records checked and written in the import's transaction" }),
          ),
        },
        { additionalProperties: false, description: 'how far the import is; written about twice a second' },
      ),
      transactionBatchToken: Type.Optional(Type.String({ description: 'the batch the import made (Completed)' })),
      result: Type.Optional(NatImportResult),
      problem: Type.Optional(
        Type.Object(
          {
            type: Type.String({
              description:
                '/problems/nat-set-unreadable, /problems/nat-set-too-large, /problems/nat-organisation-mismatch',
            }),
            title: Type.String(),
            status: Type.Integer({ description: 'the status the synchronous answer would have had' }),
            detail: Type.String(),
          },
          { additionalProperties: false, description: 'why nothing was stored (Failed), as RFC 9457 problem details' },
        ),
      ),
    },
    { additionalProperties: false, description: 'a NAT import queued as a job, and where it is' },
  ),
)

export const NatFinding = named(
  'NatFinding',
  Type.Object(
    {
      ...ValidationResult.properties,
      natRecord: Type.Optional(
        Type.String({ description: "the result's record in the files' identifiers (program BSB40120, client C0001)" }),
      ),
      natValue: Type.Optional(
        Type.String({
          description: 'the value of the first field the result names, as the files gave it to the service',
        }),
      ),
      natMessage: Type.Optional(
        Type.String({
          description:
            "the message in the files' terms: UIDs told as the records the files name, JSON paths and API field names as the NAT fields' published names",
        }),
      ),
      natCorrectiveAction: Type.Optional(Type.String({ description: "the corrective action in the files' terms" })),
      nat: Type.Array(NatPlace, {
        description:
          "where the record's fields named by accessPath came from in the NAT files, one per distinct place (the record's line when no path has a place of its own); empty for a record the zip did not give (held data a set rule names)",
      }),
    },
    { description: 'a failed validation result (as failed-validation-results answers it) with its NAT places' },
  ),
)

export const NatFindingPage = PagedEnvelope(
  NatFinding,
  "the batch's failed validation results, in the order of failed-validation-results, with their NAT places",
)
