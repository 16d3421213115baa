// AVETMISS codes to the words the API uses and back, through the service's reference datasets: the
// datasets are where each word's AVETMISS 8.0 code is kept (its `avetmissCode`), so the mapping keeps
// no code table of its own and follows a new release of the reference data without a code change.

/**
 * One record of a reference dataset, as GET /vet-provider/v1/reference-data/{dataset} (or
 * /classification) returns it; only these fields matter here, and the others may come along.
 */
export interface ReferenceDataRecord {
  /** The word the API uses (`Aboriginal`), or for a classification the published code itself (`1101`). */
  code: string
  /** The word's AVETMISS 8.0 code (`1`); null or absent where the code is the AVETMISS value itself. */
  avetmissCode?: string | null
  /** `Active` or `Inactive`; absent is taken as Active. */
  status?: string
}

/** Records by dataset name (`gender`, `country`, ...), current versions only. */
export type ReferenceDatasets = Readonly<Record<string, readonly ReferenceDataRecord[]>>

export interface CodeTranslator {
  /** The API word of an AVETMISS code in the dataset, or undefined when the dataset has none. */
  toApi(dataset: string, avetmissCode: string): string | undefined
  /** The AVETMISS code of an API word in the dataset, or undefined when the dataset has none. */
  toAvetmiss(dataset: string, apiCode: string): string | undefined
}

interface Translation {
  other: string
  active: boolean
}

/**
 * Adds `from -> to` unless an Active translation is already there: an Active record wins over an
 * Inactive one with the same code (a retired word that kept its AVETMISS code), and among records of
 * the same status the later one wins (a synchronisation delivers versions oldest first).
 */
function put(map: Map<string, Translation>, from: string, to: string, active: boolean): void {
  const existing = map.get(from)
  if (existing?.active && !active) return
  map.set(from, { other: to, active })
}

/**
 * A translator over reference data records, the shape the reference-data endpoints return. A record
 * without an `avetmissCode` translates to itself: classifications (country, language) hold the
 * AVETMISS value as their code. Inactive records still translate, Active ones first, so old NAT data
 * keeps its meaning and validation, not the mapping, says a code is out of date.
 */
export function codeTranslatorFrom(datasets: ReferenceDatasets): CodeTranslator {
  const toApi = new Map<string, Map<string, Translation>>()
  const toAvetmiss = new Map<string, Map<string, Translation>>()
  for (const [dataset, records] of Object.entries(datasets)) {
    const byAvetmiss = new Map<string, Translation>()
    const byApi = new Map<string, Translation>()
    for (const record of records) {
      const avetmiss = record.avetmissCode ?? record.code
      const active = record.status === undefined || record.status === 'Active'
      put(byAvetmiss, avetmiss, record.code, active)
      put(byApi, record.code, avetmiss, active)
    }
    toApi.set(dataset, byAvetmiss)
    toAvetmiss.set(dataset, byApi)
  }
  return {
    toApi: (dataset, avetmissCode) => toApi.get(dataset)?.get(avetmissCode)?.other,
    toAvetmiss: (dataset, apiCode) => toAvetmiss.get(dataset)?.get(apiCode)?.other,
  }
}
