// Runs queue workers only, no HTTP listener: any number of these and of API processes can share one
// PostgreSQL database. (On the embedded database the server process runs its own workers.)
import { ConfigError, loadConfig } from './config/config.ts'
import { createService } from './app.ts'
import { closeOnSignals } from './platform/lifecycle.ts'

try {
  const config = loadConfig()
  if (config.database.kind !== 'postgres') {
    console.error('npm run worker needs DATABASE_URL: the embedded database belongs to one process, which runs its own workers (npm start).')
    process.exit(2)
  }
  const service = await createService(config, { workers: true })
  closeOnSignals(service)
  service.logger.info('workers ready')
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message)
    process.exit(2)
  }
  throw error
}
