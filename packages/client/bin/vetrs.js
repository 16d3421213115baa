#!/usr/bin/env node
// Runs the CLI from its TypeScript sources in this repository (Node 22.18+ runs them directly),
// or from the built files of the published package.
import { existsSync } from 'node:fs'

const source = new URL('../src/cli/main.ts', import.meta.url)
const built = new URL('../dist/cli/main.js', import.meta.url)
const { run } = await import(existsSync(source) ? source.href : built.href)
process.exitCode = await run(process.argv.slice(2))
