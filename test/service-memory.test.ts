// The launcher's memory settings for the service's processes (issue 30, memory; src/service-memory.mjs):
// what a process lacks of them, as a table of cases. That a real start gets them is test/startup.test.ts's.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { missingMemorySettings, STARTED_WITH_MEMORY_SETTINGS } from '../src/service-memory.mjs'

const HINTS = ['--experimental-wasm-compilation-hints', '--no-wasm-dynamic-tiering']
const ALL = {
  flags: ['--max-semi-space-size=16', '--heap-growing-percent=50', ...HINTS],
  env: { MALLOC_MMAP_THRESHOLD_: '131072' },
}

describe("the service's memory settings: what a process lacks", () => {
  const cases: [string, Record<string, string>, string[], ReturnType<typeof missingMemorySettings>][] = [
    ['nothing given: all of them', {}, [], ALL],
    [
      'all given: nothing',
      { NODE_OPTIONS: '--max-semi-space-size=16', MALLOC_MMAP_THRESHOLD_: '131072' },
      ['--heap-growing-percent=50', ...HINTS],
      undefined,
    ],
    [
      "as the image's entry point gives them: the hints' two flags",
      { NODE_OPTIONS: '--max-semi-space-size=16', MALLOC_MMAP_THRESHOLD_: '131072' },
      ['--heap-growing-percent=50'],
      { flags: HINTS, env: {} },
    ],
    [
      "the operator's own young generation (NODE_OPTIONS) is kept",
      { NODE_OPTIONS: '--max-semi-space-size=32' },
      [],
      { flags: ['--heap-growing-percent=50', ...HINTS], env: ALL.env },
    ],
    [
      'a flag spelt with underscores counts as given',
      {},
      ['--max_semi_space_size=8'],
      { flags: ['--heap-growing-percent=50', ...HINTS], env: ALL.env },
    ],
    ["the operator's own threshold is kept", { MALLOC_MMAP_THRESHOLD_: '65536' }, [], { flags: ALL.flags, env: {} }],
    ['other flags do not count', { NODE_OPTIONS: '--conditions=x' }, ['--liftoff-only'], ALL],
    ['the process started again never starts itself again', { [STARTED_WITH_MEMORY_SETTINGS]: '1' }, [], undefined],
  ]
  for (const [name, env, execArgv, expected] of cases) {
    it(name, () => assert.deepEqual(missingMemorySettings(env, execArgv), expected))
  }
})
