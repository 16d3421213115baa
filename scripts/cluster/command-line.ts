// The command line of npm run cluster and npm run chaos: their options read with node:util's parseArgs,
// and a bad option or a number out of range answered with the usage and exit code 2, --help with the
// usage and 0.
export function readOptions<Values>(parse: () => { values: Values }, usage: string): Values {
  let values: Values
  try {
    values = parse().values
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`)
    process.exit(2)
  }
  if ((values as { help?: boolean }).help) {
    console.log(usage)
    process.exit(0)
  }
  return values
}

/** A whole number option from `min` to `max`, or the usage and exit code 2. */
export function wholeNumberOption(usage: string) {
  return (name: string, text: string, min: number, max: number): number => {
    const n = Number(text)
    if (!Number.isInteger(n) || n < min || n > max) {
      console.error(`--${name} must be a whole number from ${min} to ${max} (got ${text})\n\n${usage}`)
      process.exit(2)
    }
    return n
  }
}
