// @vetrs/avetmiss, the NAT library, for the service: the one place the service imports it. By path,
// not by its package name: the name resolves to the package's build (dist/), which the repository does
// not hold, unless Node.js runs with the vetrs-source condition, and neither the service nor its test
// runner does (the CLI's bin and `npm run seed:synthetic` do). The sources are plain TypeScript, run
// as the service's own are.
export * from '../../../packages/avetmiss/src/index.ts'
