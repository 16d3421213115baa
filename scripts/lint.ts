// `npm run lint`: Biome (format and lint), then the module boundaries (dependency-cruiser). Started
// through src/start.mjs like every script, so an older Node.js (dependency-cruiser needs 22 or later)
// is told which version to use instead of failing inside a tool.
import { spawnSync } from 'node:child_process'

const steps: [string, string[]][] = [
  ['biome', ['check', '.']],
  // Every workspace as well as the service: the SDK once had cycles that checking src alone never saw.
  ['depcruise', ['src', 'packages', 'tools', '--config', '.dependency-cruiser.cjs']],
]
for (const [tool, args] of steps) {
  const { status } = spawnSync(`node_modules/.bin/${tool}`, args, { stdio: 'inherit' })
  if (status !== 0) process.exit(status ?? 1)
}
