// Request size limits (spec: Limits). Configurable because the service says they may change: the
// client checks every body before sending it and splits lists so no request exceeds them.

export interface Limits {
  /** Largest request body on the wire, after gzip (spec: 1 MiB). */
  compressedBytes: number
  /** Largest request body once decompressed (spec: 10 MiB). */
  decompressedBytes: number
  /** Most UIDs in one uid-match request (the service accepts 1 to 500). */
  uidsPerRequest: number
  /** Page size asked for when paging (the service allows at most 500; 100 for declarations). */
  pageSize: number
  /**
   * Most records in one bulk upload (the service's default limit, 10,000). The service's own limit,
   * read from its OpenAPI description, applies when it is lower.
   */
  recordsPerRequest: number
}

export const defaultLimits: Limits = {
  compressedBytes: 1024 * 1024,
  decompressedBytes: 10 * 1024 * 1024,
  uidsPerRequest: 500,
  pageSize: 500,
  recordsPerRequest: 10_000,
}
