#!/usr/bin/env node
// Runs the CLI from its TypeScript sources in this repository (Node 22.18+ runs them directly), with
// @vetrs/client and @vetrs/avetmiss resolved to their sources too (the "vetrs-source" export
// condition), or from the built files of the published package.
import { existsSync } from 'node:fs'
import { registerHooks } from 'node:module'

const source = new URL('../src/main.ts', import.meta.url)
const built = new URL('../dist/main.js', import.meta.url)
const fromSource = existsSync(source)
if (fromSource) {
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      nextResolve(specifier, { ...context, conditions: [...context.conditions, 'vetrs-source'] }),
  })
}
const { run } = await import(fromSource ? source.href : built.href)
process.exitCode = await run(process.argv.slice(2))
