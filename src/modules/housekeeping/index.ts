// Housekeeping: periodic clean-up jobs that keep operational tables small.
// The first real job on the queue; capability modules add their own jobs the same way.
export {
  housekeepingJob,
  findHousekeepingRun,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_AUDIT_RETENTION_DAYS,
  type HousekeepingData,
} from './housekeeping.jobs.ts'
