#!/usr/bin/env node
// Runs the CLI from its TypeScript sources in this repository (Node 22.18+ runs them directly), with
// @vetrs/client and @vetrs/avetmiss resolved to their sources too (the "vetrs-source" export
// condition), or from the built files of the published package. On an older Node.js it says which
// version is needed and how to get it, before loading anything that Node.js cannot run: so only
// node:fs, node:url and plain JavaScript are imported statically, and node:module (registerHooks is
// Node 22.15+) after the check.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { natImportNeedsOwnProcess, runNatImportInOwnProcess } from './nat-memory.js'
import { minimumNode, nodeVersionProblem } from './node-version.js'

const problem = nodeVersionProblem('vetrs (the VET Reporting Service CLI)', minimumNode())
if (problem) {
  process.stderr.write(problem)
  process.exit(1)
}

// A NAT import runs in a Node.js started for its memory (nat-memory.js): V8's young generation capped,
// large blocks given back to the system.
const args = process.argv.slice(2)
if (natImportNeedsOwnProcess(args)) {
  process.exitCode = await runNatImportInOwnProcess(fileURLToPath(import.meta.url), args)
} else {
  await runHere(args)
}

async function runHere(args) {
  const source = new URL('../src/main.ts', import.meta.url)
  const built = new URL('../dist/main.js', import.meta.url)
  const fromSource = existsSync(source)
  if (fromSource) {
    const { registerHooks } = await import('node:module')
    registerHooks({
      resolve: (specifier, context, nextResolve) =>
        nextResolve(specifier, { ...context, conditions: [...context.conditions, 'vetrs-source'] }),
    })
  }
  const { run } = await import(fromSource ? source.href : built.href)
  process.exitCode = await run(args)
}
