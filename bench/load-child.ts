// One load run in a child process (bench/load.ts): the load generator never shares the event loop of
// the servers it measures. Bounded: a child that has not answered `seconds` + 30 s after it started is
// killed, and the run fails.
import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { LoadRequest, LoadResult } from './load.ts'

const LOAD_SCRIPT = fileURLToPath(new URL('./load.ts', import.meta.url))

/** Runs `request` in a new child; `onChild` is told the child (to stop it on Ctrl-C) and then undefined. */
export function loadInChild(
  request: LoadRequest,
  onChild: (child: ChildProcess | undefined) => void = () => {},
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(LOAD_SCRIPT, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    onChild(child)
    let answer: { result?: LoadResult; error?: string } | undefined
    const timer = setTimeout(() => child.kill('SIGKILL'), (request.seconds + 30) * 1000)
    child.on('message', (message) => {
      answer = message as typeof answer
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      onChild(undefined)
      if (answer?.result) resolve(answer.result)
      else reject(new Error(`load generator failed (exit ${code ?? signal}): ${answer?.error ?? 'no result'}`))
    })
    child.send(request)
  })
}
