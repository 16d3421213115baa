// The launcher starts `vetrs nat import` in a Node.js of its own, with V8's young generation capped and
// large blocks given back to the system (bin/nat-memory.js; issue 31 item 9): which commands it
// starts so, and that the started process has the flags and the environment and ends as the import ends.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import {
  NAT_IMPORT_ENV,
  NAT_IMPORT_NODE_FLAGS,
  natImportNeedsOwnProcess,
  STARTED_FOR_MEMORY,
} from '../bin/nat-memory.js'

const run = promisify(execFile)
const BIN = new URL('../bin/vetrs.js', import.meta.url).pathname

describe('vetrs nat import in a process started for its memory', () => {
  it('is started so for nat import only, once, and not when the user gave the young generation a size', () => {
    assert.equal(natImportNeedsOwnProcess(['nat', 'import', 'set.zip'], {}, []), true)
    assert.equal(natImportNeedsOwnProcess(['--json', 'nat', 'import', 'set.zip'], {}, []), true)
    assert.equal(natImportNeedsOwnProcess(['nat', 'export', '--out', 'x'], {}, []), false)
    assert.equal(natImportNeedsOwnProcess(['batches', 'list'], {}, []), false)
    assert.equal(natImportNeedsOwnProcess(['nat', 'import', 'x'], { [STARTED_FOR_MEMORY]: '1' }, []), false)
    assert.equal(
      natImportNeedsOwnProcess(['nat', 'import', 'x'], { NODE_OPTIONS: '--max-semi-space-size=64' }, []),
      false,
    )
    assert.equal(natImportNeedsOwnProcess(['nat', 'import', 'x'], {}, ['--max-semi-space-size=4']), false)
  })

  it('runs the import with the flags and the environment, and exits as the import does', async () => {
    // A probe module given to the launcher's Node.js with --import, which the launcher passes on
    // (process.execArgv): the started process prints the flags and the environment it runs with.
    const probe = `data:text/javascript,${encodeURIComponent(
      `if (process.env.${STARTED_FOR_MEMORY} === '1') process.stderr.write('PROBE ' + JSON.stringify({ execArgv: process.execArgv, malloc: process.env.MALLOC_MMAP_THRESHOLD_ }) + '\\n')`,
    )}`
    const outcome = await run(process.execPath, ['--import', probe, BIN, 'nat', 'import', '/no/such/set.zip'], {
      env: { ...process.env, VETRS_URL: 'http://127.0.0.1:9', VETRS_CLIENT_ID: 'x', VETRS_CLIENT_SECRET: 'y' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    )
    const line = outcome.stderr.split('\n').find((text) => text.startsWith('PROBE '))
    assert.ok(line, `the started process said nothing: ${outcome.stderr}`)
    const seen = JSON.parse(line.slice('PROBE '.length)) as { execArgv: string[]; malloc: string }
    for (const flag of NAT_IMPORT_NODE_FLAGS) assert.ok(seen.execArgv.includes(flag), JSON.stringify(seen))
    assert.equal(seen.malloc, NAT_IMPORT_ENV.MALLOC_MMAP_THRESHOLD_)
    // The import's own failure (no such file: a usage error) is the launcher's exit code.
    assert.notEqual(outcome.code, 0)
    assert.match(outcome.stderr, /no such file or folder: \/no\/such\/set\.zip/)
  })
})
