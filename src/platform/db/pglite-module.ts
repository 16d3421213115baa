// PGlite's WebAssembly (PostgreSQL compiled to it) with a compilation hint that keeps its largest
// functions at V8's baseline compiler (issue 30, "Memory"; docs/decisions.md, "The parser kept at
// Liftoff"). V8's optimising compiler took 604 MB of memory for one function, PostgreSQL's grammar
// (`raw_parser`, 105 KB of WebAssembly), at every start: the process's peak. A "compilationHints"
// custom section (V8's experimental compilation hints: one byte a function, its top tier in bits 4-5)
// marks every function body of at least HINTED_BODY_BYTES with "top tier: baseline". V8 reads the
// section only with --experimental-wasm-compilation-hints, and applies a function's top tier only
// without dynamic tiering (--no-wasm-dynamic-tiering: each function optimised after its first baseline
// compilation instead of once hot); the launcher gives the service's processes both flags
// (src/service-memory.mjs). Without them the section is a custom section like any other, ignored.
// The module is compiled once a process and shared by every PGlite instance.
import { readFile } from 'node:fs/promises'

/** Function bodies this large or larger stay at the baseline tier (PGlite 0.3: four functions, the parser among them). */
export const HINTED_BODY_BYTES = 50_000

const SECTION_IMPORT = 2
const SECTION_FUNCTION = 3
const SECTION_CODE = 10
const HINT_TOP_TIER_BASELINE = 0x10

let compiled: Promise<WebAssembly.Module> | undefined

/** PGlite's module with the hint, compiled once (undefined when its file cannot be read: PGlite finds its own). */
export function hintedPgliteModule(): Promise<WebAssembly.Module | undefined> {
  compiled ??= readFile(new URL('./pglite.wasm', import.meta.resolve('@electric-sql/pglite'))).then((bytes) =>
    WebAssembly.compile(withCompilationHints(bytes, HINTED_BODY_BYTES)),
  )
  return compiled.catch(() => undefined)
}

/**
 * The module's bytes with a compilationHints section before its code section: "top tier: baseline"
 * for each function whose body is at least `minBodyBytes`, the default for the rest.
 */
export function withCompilationHints(module: Uint8Array, minBodyBytes: number): Uint8Array<ArrayBuffer> {
  const sections = sectionsOf(module)
  const code = sections.find((section) => section.id === SECTION_CODE)
  const functions = sections.find((section) => section.id === SECTION_FUNCTION)
  if (!code || !functions) throw new Error('a WebAssembly module without functions')
  const declared = readLeb(module, functions.payload).value
  const bodySizes = codeBodySizes(module, code.payload)
  if (bodySizes.length !== declared) throw new Error('function and code sections disagree')
  const name = new TextEncoder().encode('compilationHints')
  const content = [
    ...leb(name.length),
    ...name,
    ...leb(declared),
    ...bodySizes.map((size) => (size >= minBodyBytes ? HINT_TOP_TIER_BASELINE : 0)),
  ]
  const section = Uint8Array.from([0, ...leb(content.length), ...content])
  const out = new Uint8Array(module.length + section.length)
  out.set(module.subarray(0, code.start), 0)
  out.set(section, code.start)
  out.set(module.subarray(code.start), code.start + section.length)
  return out
}

/** The functions the hint keeps at the baseline tier, by index (imports counted, as V8 numbers them). */
export function hintedFunctions(module: Uint8Array, minBodyBytes: number): number[] {
  const sections = sectionsOf(module)
  const code = sections.find((section) => section.id === SECTION_CODE)
  const imports = sections.find((section) => section.id === SECTION_IMPORT)
  if (!code) return []
  const imported = imports ? importedFunctionCount(module, imports.payload) : 0
  return codeBodySizes(module, code.payload).flatMap((size, index) => (size >= minBodyBytes ? [imported + index] : []))
}

interface Section {
  id: number
  /** Where the section starts (its id byte). */
  start: number
  /** Where its content starts. */
  payload: number
}

function sectionsOf(module: Uint8Array): Section[] {
  const sections: Section[] = []
  let at = 8 // magic and version
  while (at < module.length) {
    const id = module[at]!
    const size = readLeb(module, at + 1)
    sections.push({ id, start: at, payload: size.next })
    at = size.next + size.value
  }
  return sections
}

function codeBodySizes(module: Uint8Array, payload: number): number[] {
  const count = readLeb(module, payload)
  const sizes: number[] = []
  let at = count.next
  for (let i = 0; i < count.value; i++) {
    const size = readLeb(module, at)
    sizes.push(size.value)
    at = size.next + size.value
  }
  return sizes
}

function importedFunctionCount(module: Uint8Array, payload: number): number {
  const count = readLeb(module, payload)
  let at = count.next
  let functions = 0
  const skipLeb = () => {
    at = readLeb(module, at).next
  }
  const skipName = () => {
    const length = readLeb(module, at)
    at = length.next + length.value
  }
  for (let i = 0; i < count.value; i++) {
    skipName() // module
    skipName() // field
    const kind = module[at++]
    if (kind === 0) {
      functions++
      skipLeb() // type index
    } else if (kind === 1) {
      at++ // element type
      const flags = module[at++]!
      skipLeb()
      if (flags & 1) skipLeb()
    } else if (kind === 2) {
      const flags = module[at++]!
      skipLeb()
      if (flags & 1) skipLeb()
    } else if (kind === 3) {
      at += 2 // value type, mutability
    } else if (kind === 4) {
      at++ // attribute
      skipLeb()
    } else {
      throw new Error(`unknown import kind ${kind}`)
    }
  }
  return functions
}

function readLeb(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0
  let shift = 0
  let byte: number
  do {
    byte = bytes[at++]!
    value += (byte & 0x7f) * 2 ** shift
    shift += 7
  } while (byte & 0x80)
  return { value, next: at }
}

function leb(value: number): number[] {
  const out: number[] = []
  do {
    let byte = value & 0x7f
    value = Math.floor(value / 128)
    if (value > 0) byte |= 0x80
    out.push(byte)
  } while (value > 0)
  return out
}
