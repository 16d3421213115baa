// The links a submission's records make, worked out beside the submit's transaction (issue 30: the
// reconciliation lag after a 100,000-record submission). Reading every body of the batch for its
// references and sorting the links was a third or more of the indexing's longest statement; staged
// while submit promotes the batch, the indexing inserts them without reading a body. Unlogged: a
// stage is a cache the indexing can always do without (after a crash the table is empty and the
// indexing reads the batch itself), so it writes no write-ahead log and is not replicated. Keyed by the
// submission (the batch and its submission time), so a stage of a submit that rolled back is never
// taken for a later submission of the same batch. docs/decisions.md, "Reconciliation lag (issue 30)".
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE UNLOGGED TABLE reconciliation_staged_link (
      rto_id text NOT NULL,
      transaction_batch_token text NOT NULL,
      submitted_at timestamptz NOT NULL,
      source_type text NOT NULL,
      source_uid uuid NOT NULL,
      target_type text NOT NULL,
      target_uid uuid NOT NULL,
      -- A submission's links in held_link's key order: read back in the order they are inserted there.
      PRIMARY KEY (rto_id, transaction_batch_token, submitted_at, target_type, target_uid, source_type, source_uid)
    )`.execute(db)
}
