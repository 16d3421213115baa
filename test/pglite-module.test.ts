// The embedded database's parser kept from V8's optimising compiler (issue 30, memory;
// src/platform/db/pglite-module.ts): the compilation hint as bytes (a table of cases on a small module),
// and on PGlite's own module in a real process with the launcher's flags: the hinted functions are
// compiled by the baseline compiler only, while the others that ran were optimised.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { HINTED_BODY_BYTES, hintedFunctions, withCompilationHints } from '../src/platform/db/pglite-module.ts'
import { SERVICE_NODE_FLAGS } from '../src/service-memory.mjs'

/** A module of one imported function and functions with bodies of the given sizes (`nop`s), each () -> (). */
function moduleWith(bodySizes: number[]): Uint8Array {
  const leb = (value: number): number[] => {
    const out: number[] = []
    do {
      let byte = value & 0x7f
      value >>>= 7
      if (value) byte |= 0x80
      out.push(byte)
    } while (value)
    return out
  }
  const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content]
  const name = (text: string) => [...leb(text.length), ...new TextEncoder().encode(text)]
  const body = (size: number) => {
    // locals count 0, then nops, then end: `size` bytes in all.
    const content = [0, ...new Array(Math.max(0, size - 2)).fill(0x01), 0x0b]
    return [...leb(content.length), ...content]
  }
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, 0, 0]), // one type: () -> ()
    ...section(2, [1, ...name('env'), ...name('f'), 0, 0]), // one imported function
    ...section(3, [...leb(bodySizes.length), ...bodySizes.map(() => 0)]),
    ...section(10, [...leb(bodySizes.length), ...bodySizes.flatMap(body)]),
  ])
}

describe('the compilation hint (pglite-module.ts)', () => {
  const cases: [string, number[], number, number[]][] = [
    ['no body large enough: every hint the default', [10, 20], 100, [0, 0]],
    ['the large body alone is kept at the baseline tier', [10, 300, 20], 100, [0, 0x10, 0]],
    ['a body exactly at the bound counts', [100, 99], 100, [0x10, 0]],
  ]
  for (const [name, sizes, bound, hints] of cases) {
    it(name, () => {
      const original = moduleWith(sizes)
      const hinted = withCompilationHints(original, bound)
      assert.ok(WebAssembly.validate(hinted), 'still a valid module')
      const section = new WebAssembly.Module(hinted)
      assert.equal(WebAssembly.Module.customSections(section, 'compilationHints').length, 1)
      const content = new Uint8Array(WebAssembly.Module.customSections(section, 'compilationHints')[0]!)
      assert.deepEqual([...content], [sizes.length, ...hints])
      const bodies = sizes.map((size) => (size >= bound ? 1 : 0))
      assert.deepEqual(
        hintedFunctions(original, bound),
        bodies.flatMap((hinted, index) => (hinted ? [index + 1] : [])), // one import before them
      )
    })
  }
})

describe("PGlite's parser at the baseline tier, in a process with the launcher's flags (issue 30, memory)", {
  skip: process.env.TEST_DATABASE === 'postgres' ? 'the embedded database only (PGlite half)' : false,
}, () => {
  it('the hinted functions (the parser among them) are compiled by Liftoff only, while other functions that ran were optimised', () => {
    const wasm = readFileSync(new URL('./pglite.wasm', import.meta.resolve('@electric-sql/pglite')))
    const hinted = hintedFunctions(wasm, HINTED_BODY_BYTES)
    assert.ok(hinted.length >= 1 && hinted.length <= 10, `hinted: ${hinted.join(', ')}`)
    const script = `
      const { PGlite } = await import('@electric-sql/pglite')
      const { hintedPgliteModule } = await import(${JSON.stringify(new URL('../src/platform/db/pglite-module.ts', import.meta.url).href)})
      const db = await PGlite.create({ pgliteWasmModule: await hintedPgliteModule() })
      for (let i = 0; i < 200; i++) await db.query('SELECT $1::int + 1 AS n, md5($1::text) AS h', [i])
      await db.exec('CREATE TABLE t (id int PRIMARY KEY, body jsonb); INSERT INTO t SELECT g, jsonb_build_object(\\'g\\', g) FROM generate_series(1, 2000) g')
      await db.close()`
    const run = spawnSync(
      process.execPath,
      [...SERVICE_NODE_FLAGS, '--trace-wasm-compilation-times', '--input-type=module', '-e', script],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
    )
    assert.equal(run.status, 0, run.stderr.slice(-2000))
    const compiled = [...run.stdout.matchAll(/#(\d+)(?::'[^']*')? using (Liftoff|TurboFan)/g)].map((m) => ({
      index: Number(m[1]),
      tier: m[2],
    }))
    const optimised = compiled.filter((c) => c.tier === 'TurboFan')
    assert.ok(optimised.length > 100, `the flags took: ${optimised.length} functions optimised`)
    const parserCompiled = compiled.filter((c) => hinted.includes(c.index))
    assert.ok(parserCompiled.length >= 1, 'the parser ran (a hinted function was compiled)')
    assert.deepEqual(
      parserCompiled.filter((c) => c.tier === 'TurboFan'),
      [],
      'no hinted function optimised',
    )
  })
})
