// The part of autocannon 8's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  interface AutocannonRequest {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest | undefined
  }

  interface AutocannonOptions {
    url: string
    method?: string
    headers?: Record<string, string>
    body?: string | Buffer
    requests?: AutocannonRequest[]
    connections?: number
    pipelining?: number
    duration?: number
    timeout?: number
    workers?: number
  }

  interface Histogram {
    average: number
    mean: number
    p50: number
    p99: number
    max: number
    total: number
  }

  interface AutocannonResult {
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    '2xx': number
    requests: Histogram
    latency: Histogram
    statusCodeStats: Record<string, { count: number }>
  }

  interface Instance extends EventEmitter {
    stop(): void
  }

  function autocannon(
    options: AutocannonOptions,
    callback: (error: Error | null, result: AutocannonResult) => void,
  ): Instance

  export default autocannon
  export type { AutocannonOptions, AutocannonRequest, AutocannonResult, Instance }
}
