// What an upload answers (spec: Resource endpoints inside a batch): the one schema, and the type the
// service returns derived from it, so the answer and its description cannot drift apart.
import Type, { type Static } from 'typebox'
import { Nullable } from '../../platform/http/types.ts'
import { named } from '../../platform/http/schema-names.ts'

export const UploadResult = named(
  'UploadResult',
  Type.Object(
    {
      resourceType: Type.String(),
      resourceUID: Type.String({ format: 'uuid' }),
      changeTrackingIdentifier: Nullable(Type.String(), { description: 'as uploaded, unchanged' }),
      transactionBatchToken: Type.String(),
      hasBlockingValidationFailures: Type.Boolean({
        description: 'false for every accepted upload: upload checks structure only, and a structural failure is a 400',
      }),
      hasNonBlockingValidationFailures: Type.Boolean(),
    },
    { description: "201 when the record was created in the batch, 200 when it replaced the batch's earlier version" },
  ),
)

export type UploadResult = Static<typeof UploadResult>
