// Starts the HTTP server, and the queue workers unless RUN_WORKERS=false.
// Started through src/start.mjs (npm start), which checks the Node.js version first.
import { loadConfig } from './config/config.ts'
import { createService } from './app.ts'
import { closeOnSignals } from './platform/lifecycle.ts'
import { assertPortFree, listenError } from './platform/http/port.ts'
import { exitOnStartupFailure } from './platform/startup.ts'

try {
  const config = loadConfig()
  // Before the database is touched: a second copy on a taken port must not open, migrate or lock it.
  await assertPortFree(config.http.host, config.http.port)
  const service = await createService(config)
  closeOnSignals(service)
  await service.app
    .listen({ port: config.http.port, host: config.http.host })
    .catch(async (error: NodeJS.ErrnoException) => {
      await service.close() // taken since the check: release the database before exiting
      throw listenError(error, config.http.host, config.http.port)
    })
  service.logger.info(
    { database: service.database.kind, workers: config.runWorkers, docs: `${config.http.publicBaseUrl}/docs` },
    'service ready',
  )
} catch (error) {
  exitOnStartupFailure(error)
}
