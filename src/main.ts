// Starts the HTTP server, and the queue workers unless RUN_WORKERS=false.
// Started through src/start.mjs (npm start), which checks the Node.js version first.
import { loadConfig } from './config/config.ts'
import { createService } from './app.ts'
import { closeOnSignals } from './platform/lifecycle.ts'
import { exitOnStartupFailure } from './platform/startup.ts'

try {
  const config = loadConfig()
  const service = await createService(config)
  closeOnSignals(service)
  await service.app.listen({ port: config.http.port, host: config.http.host }).catch(async (error: unknown) => {
    await service.close() // e.g. the port is taken: release the database before exiting
    throw error
  })
  service.logger.info({ database: service.database.kind, workers: config.runWorkers, docs: `${config.http.publicBaseUrl}/docs` }, 'service ready')
} catch (error) {
  exitOnStartupFailure(error)
}
