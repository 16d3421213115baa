// Runs queue workers only, no HTTP listener: any number of these and of API processes can share one
// PostgreSQL database. (On the embedded database the server process runs its own workers.) It builds
// the core alone (database, queue, jobs): no HTTP app, signing key or API clients.
// Started through src/start.mjs (npm run worker), which checks the Node.js version first.
import { ConfigError, loadConfig } from './config/config.ts'
import { createCore } from './core.ts'
import { startWorkerListener } from './platform/http/worker-listener.ts'
import { closeOnSignals } from './platform/lifecycle.ts'
import { exitOnStartupFailure } from './platform/startup.ts'

try {
  const config = loadConfig(process.env, { signsTokens: false })
  if (config.database.kind !== 'postgres') {
    throw new ConfigError([
      'DATABASE_URL: npm run worker needs it; the embedded database belongs to one process, which runs its own workers (npm start)',
    ])
  }
  const core = await createCore(config)
  closeOnSignals(core)
  const { workerMetricsPort } = config
  if (workerMetricsPort !== undefined) {
    // Added to the core's open handles: closed first, before the queue and the database.
    const listener = core.handles.add(
      await startWorkerListener(core.metrics, { ...config, workerMetricsPort }),
      ({ app }) => app.close(),
    )
    core.logger.info({ url: listener.url }, 'worker metrics and liveness listening')
  }
  await core.queue.startWorkers().catch(async (error: unknown) => {
    await core.close().catch(() => {})
    throw error
  })
  core.logger.info('workers ready')
} catch (error) {
  exitOnStartupFailure(error)
}
