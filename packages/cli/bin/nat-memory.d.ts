// Types of nat-memory.js (plain JavaScript, run before the CLI's TypeScript), for the bench that
// measures the import as the launcher starts it.
export declare const NAT_IMPORT_NODE_FLAGS: string[]
export declare const NAT_IMPORT_ENV: Record<string, string>
export declare const STARTED_FOR_MEMORY: string
export declare function natImportNeedsOwnProcess(
  args: string[],
  env?: Record<string, string | undefined>,
  execArgv?: string[],
): boolean
export declare function runNatImportInOwnProcess(bin: string, args: string[]): Promise<number>
