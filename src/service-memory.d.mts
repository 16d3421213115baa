// Types of service-memory.mjs (plain JavaScript, read by the launcher before TypeScript can run).
export declare const SERVICE_NODE_FLAGS: string[]
export declare const SERVICE_MEMORY_ENV: Record<string, string>
export declare const STARTED_WITH_MEMORY_SETTINGS: string
export declare function missingMemorySettings(
  env: Record<string, string | undefined>,
  execArgv: string[],
): { flags: string[]; env: Record<string, string> } | undefined
