// The client files' lines kept as where they are, not as records (issue 31 item 9): a NAT set of
// 100,000 activities is about 240,000 client-file lines, and as records (an object of values each,
// their strings, the file and line) they were about 100 MB of heap held from the read to the last
// chunk of the upload. Kept instead: each file's text (what the reading decoded anyway; once the file
// is read, as blocks let go as the chunks read their lines again: text-blocks.ts) and four numbers a
// line (its line, where its content is in the text, its length, its client), about 16 bytes a line; a
// chunk's lines are read again into records when the chunk is mapped, and let go with it. The chunks
// are cut as natToResourceChunks cuts a whole read (partitionByClient): runs of whole clients of at
// least `chunkLines` lines, clients in the order they first appear (NAT00080 first), each file's lines
// by client and then in file order.
import type { NatFileId } from './layouts/index.ts'
import { CLIENT_FILES } from './mapping/nat-to-resource-chunks.ts'
import { natRecordAt, type NatParseSink } from './parse-file.ts'
import type { NatReadLayout } from './read-layouts.ts'
import { emptyRecordSet, type NatRecord, type NatRecordSet } from './records.ts'
import { TextBlocks } from './text-blocks.ts'

type ClientFileId = (typeof CLIENT_FILES)[number]

/** A list of whole numbers that grows by doubling: 4 bytes each, not a JavaScript array's 8 or more. */
class Ints {
  #values = new Int32Array(1024)
  length = 0
  push(value: number): void {
    if (this.length === this.#values.length) {
      const grown = new Int32Array(this.#values.length * 2)
      grown.set(this.#values)
      this.#values = grown
    }
    this.#values[this.length++] = value
  }
  get(index: number): number {
    return this.#values[index]!
  }
}

interface FileLines {
  file: string
  /** The text the lines are read from, while the file is read; then its blocks. */
  body: string | undefined
  /** The text as blocks, each let go once its lines are read again (`textRead`). */
  blocks?: TextBlocks
  layout: NatReadLayout
  line: Ints
  at: Ints
  length: Ints
  /** The client's number in the order clients were first read (reading order, not chunk order). */
  client: Ints
}

export class ClientLineIndex {
  readonly #files = new Map<NatFileId, FileLines>()
  /** Client identifier to its number, while reading (let go when the chunks are cut). */
  #clients: Map<string, number> | undefined = new Map()
  #lines = 0

  static isClientFile(fileId: NatFileId): fileId is ClientFileId {
    return (CLIENT_FILES as readonly string[]).includes(fileId)
  }

  /** Lines kept (those read without a problem). */
  get lines(): number {
    return this.#lines
  }

  /**
   * The sink that keeps a client file's records as positions (parseNatText's `take`); `onRecord` is
   * told each record first (a tally of what the records say, for instance).
   */
  sinkFor<F extends NatFileId>(fileId: F, file: string, onRecord?: (record: NatRecord<F>) => void): NatParseSink<F> {
    const sink: NatParseSink<F> = {
      take: (record, at, length) => {
        onRecord?.(record)
        let lines = this.#files.get(fileId)
        if (!lines) {
          lines = {
            file,
            body: sink.body!,
            layout: sink.layout!,
            line: new Ints(),
            at: new Ints(),
            length: new Ints(),
            client: new Ints(),
          }
          this.#files.set(fileId, lines)
        }
        const clients = this.#clients!
        const identifier = (record.values as { clientIdentifier?: string }).clientIdentifier ?? ''
        let client = clients.get(identifier)
        if (client === undefined) {
          client = clients.size
          clients.set(identifier, client)
        }
        lines.line.push(record.line)
        lines.at.push(at)
        lines.length.push(length)
        lines.client.push(client)
        this.#lines++
        return true
      },
    }
    return sink
  }

  /**
   * Says the file's text is read to its end: it is kept from now on as blocks of whole lines, each let
   * go once the chunks have read its lines again (the one text is garbage from here on).
   */
  textRead(fileId: NatFileId): void {
    const lines = this.#files.get(fileId)
    if (!lines || lines.body === undefined) return
    lines.blocks = new TextBlocks(lines.body, (i) => lines.at.get(i), lines.line.length)
    lines.body = undefined
  }

  /**
   * The client files' records a run of whole clients at a time (at least `chunkLines` lines a chunk,
   * one chunk when there is no line), each line read again from the text; the small files' arrays
   * are empty. Read once: the texts are let go as the last chunk is read.
   */
  *chunks(chunkLines: number): Generator<NatRecordSet, void, void> {
    const clientCount = this.#clients?.size ?? 0
    this.#clients = undefined
    for (const fileId of this.#files.keys()) this.textRead(fileId)
    // Clients ranked as partitionByClient meets them: through the files in CLIENT_FILES order.
    const rank = new Int32Array(clientCount).fill(-1)
    let ranked = 0
    for (const fileId of CLIENT_FILES) {
      const lines = this.#files.get(fileId)
      if (!lines) continue
      for (let i = 0; i < lines.line.length; i++) {
        const client = lines.client.get(i)
        if (rank[client] === -1) rank[client] = ranked++
      }
    }
    const linesOfRank = new Int32Array(clientCount)
    for (const lines of this.#files.values())
      for (let i = 0; i < lines.line.length; i++) linesOfRank[rank[lines.client.get(i)]!]!++
    // Each file's lines by rank, then in file order (a counting sort: stable).
    const order = new Map<ClientFileId, Int32Array>()
    for (const fileId of CLIENT_FILES) {
      const lines = this.#files.get(fileId)
      if (!lines) continue
      const starts = new Int32Array(clientCount + 1)
      for (let i = 0; i < lines.line.length; i++) starts[rank[lines.client.get(i)]! + 1]!++
      for (let r = 0; r < clientCount; r++) starts[r + 1]! += starts[r]!
      const sorted = new Int32Array(lines.line.length)
      for (let i = 0; i < lines.line.length; i++) sorted[starts[rank[lines.client.get(i)]!]!++] = i
      order.set(fileId, sorted)
    }
    const cursor = new Map<ClientFileId, number>()
    let from = 0
    let size = 0
    let given = 0
    const chunkOf = (to: number): NatRecordSet => {
      const chunk = emptyRecordSet()
      for (const fileId of CLIENT_FILES) {
        const lines = this.#files.get(fileId)
        const sorted = order.get(fileId)
        if (!lines || !sorted) continue
        let next = cursor.get(fileId) ?? 0
        const records = chunk[fileId] as NatRecord[]
        while (next < sorted.length && rank[lines.client.get(sorted[next]!)]! < to) {
          const i = sorted[next++]!
          const content = lines.blocks!.read(lines.at.get(i), lines.length.get(i))
          records.push(natRecordAt(fileId, lines.file, lines.line.get(i), content, lines.layout))
        }
        cursor.set(fileId, next)
      }
      return chunk
    }
    for (let r = 0; r < clientCount; r++) {
      size += linesOfRank[r]!
      if (size < chunkLines) continue
      const chunk = chunkOf(r + 1)
      from = r + 1
      size = 0
      given++
      if (from === clientCount) this.#files.clear()
      yield chunk
    }
    if (size > 0 || given === 0) {
      const chunk = chunkOf(clientCount)
      this.#files.clear()
      yield chunk
    }
  }
}
